"""The shipped weights re-encoded as Q8_0 without llama.cpp's ``llama-quantize``.

``make setup`` installs a prebuilt ``llama-server`` (no ``llama-quantize``
comes with it), so the one re-encoding the project needs (Q4_1 -> Q8_0, see
:data:`sandbox.models.local.weights.PREPARED_TYPE`) is done here with the
``gguf`` package (ggml-org's own reader, writer and reference quantizers).
It does what ``llama-quantize --allow-requantize SRC DST Q8_0`` does for this
model: every quantized tensor is expanded to 32-bit floats and quantized again
as Q8_0 (the F32 norms stay as they are), the tensors are written in the same
order (the file's own tensors first, then block by block), and the metadata is
kept but for the file type (written last, as llama-quantize does). Measured on
SmolLM2-135M: the file equals llama-quantize's byte for byte (docs/local-model.md).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

# The file type a Q8_0 file announces (llama.cpp's LLAMA_FTYPE_MOSTLY_Q8_0).
FILE_TYPE_Q8_0 = 7
_BLOCK = re.compile(r"^blk\.(\d+)\.")


def tensor_order(name: str) -> tuple[int, str]:
    """Where llama-quantize puts a tensor: the tensors outside the blocks first,
    then the blocks in number order, each by name."""
    block = _BLOCK.match(name)
    return (int(block[1]) if block else -1, name)


def requantize_q8_0(source: Path, target: Path) -> None:
    """Write ``source`` (a GGUF file) to ``target`` with its quantized tensors as Q8_0."""
    import gguf  # installed by `make setup`; only this step needs it

    reader = gguf.GGUFReader(source)
    architecture = str(reader.fields["general.architecture"].contents())
    writer = gguf.GGUFWriter(target, architecture, use_temp_file=False)
    for field in reader.fields.values():
        # The header's own counts, the architecture the writer already set, and
        # the file type, which llama-quantize writes last.
        if field.name.startswith("GGUF.") or field.name in (
            "general.architecture",
            "general.file_type",
        ):
            continue
        value: Any = field.contents()
        item_type = field.types[1] if len(field.types) > 1 else None
        writer.add_key_value(field.name, value, field.types[0], sub_type=item_type)
    writer.add_file_type(FILE_TYPE_Q8_0)
    for tensor in sorted(reader.tensors, key=lambda t: tensor_order(t.name)):
        kind = gguf.GGMLQuantizationType(tensor.tensor_type)
        if kind == gguf.GGMLQuantizationType.F32:
            writer.add_tensor(tensor.name, tensor.data, raw_dtype=kind)
            continue
        values = gguf.quants.dequantize(tensor.data, kind)
        encoded = gguf.quants.quantize(values, gguf.GGMLQuantizationType.Q8_0)
        writer.add_tensor(tensor.name, encoded, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
