"""The Q8_0 re-encoding without llama-quantize (requantize.py), on a small GGUF
file made here: tensor types, order, values and metadata as llama-quantize
leaves them; and prepare_packaged uses it when no llama-quantize is given."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sandbox.models import local as local_model
from sandbox.models.local import weights
from sandbox.models.local.requantize import FILE_TYPE_Q8_0, requantize_q8_0, tensor_order

gguf = pytest.importorskip("gguf")  # the `local` extra, installed by make setup

Q4_1 = gguf.GGMLQuantizationType.Q4_1
Q8_0 = gguf.GGMLQuantizationType.Q8_0
F32 = gguf.GGMLQuantizationType.F32


def small_model(path: Path) -> dict[str, np.ndarray]:
    """A GGUF file with Q4_1, Q8_0 and F32 tensors in the shipped file's order;
    returns each tensor's values as stored (dequantized)."""
    rng = np.random.default_rng(7)
    writer = gguf.GGUFWriter(path, "llama", use_temp_file=False)
    writer.add_name("tiny")
    writer.add_file_type(3)  # Q4_1, as the shipped file says
    writer.add_array("tokenizer.ggml.tokens", ["a", "b", "c"])
    writer.add_uint32("llama.context_length", 64)
    stored: dict[str, np.ndarray] = {}
    for name, kind in [
        ("token_embd.weight", Q8_0),
        ("blk.1.ffn_up.weight", Q4_1),
        ("blk.0.attn_q.weight", Q4_1),
        ("blk.0.attn_norm.weight", F32),
        ("blk.10.ffn_up.weight", Q4_1),
        ("output_norm.weight", F32),
    ]:
        values = rng.normal(size=(4, 64)).astype(np.float32)
        if kind == F32:
            values = values[0]
            writer.add_tensor(name, values)
            stored[name] = values
            continue
        data = gguf.quants.quantize(values, kind)
        writer.add_tensor(name, data, raw_dtype=kind)
        stored[name] = gguf.quants.dequantize(data, kind)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return stored


def test_quantized_tensors_become_q8_0_in_llama_quantize_s_order(tmp_path: Path) -> None:
    source, target = tmp_path / "in.gguf", tmp_path / "out.gguf"
    stored = small_model(source)
    requantize_q8_0(source, target)
    reader = gguf.GGUFReader(target)
    names = [t.name for t in reader.tensors]
    assert names == [
        "output_norm.weight",
        "token_embd.weight",
        "blk.0.attn_norm.weight",
        "blk.0.attn_q.weight",
        "blk.1.ffn_up.weight",
        "blk.10.ffn_up.weight",  # block 10 after block 1 (numbers, not text)
    ]
    for tensor in reader.tensors:
        kind = gguf.GGMLQuantizationType(tensor.tensor_type)
        original = stored[tensor.name]
        if original.ndim == 1:
            assert kind == F32
            assert np.array_equal(np.asarray(tensor.data), original)
            continue
        assert kind == Q8_0
        again = gguf.quants.dequantize(np.asarray(tensor.data), Q8_0)
        # Q8_0's rounding: half a step (1/127 of each 32-value block's largest),
        # plus the step's own rounding to 16 bits (2^-11 of it, times up to 127).
        blocks = original.reshape(-1, 32)
        step = np.abs(blocks).max(axis=1, keepdims=True) / 127
        error = np.abs(again.reshape(-1, 32) - blocks)
        assert np.all(error <= step * (0.5 + 127 / 2048))
    token_embd = next(t for t in reader.tensors if t.name == "token_embd.weight")
    assert np.array_equal(
        gguf.quants.dequantize(np.asarray(token_embd.data), Q8_0), stored["token_embd.weight"]
    )  # Q8_0 in, the same Q8_0 out


def test_metadata_is_kept_but_for_the_file_type_written_last(tmp_path: Path) -> None:
    source, target = tmp_path / "in.gguf", tmp_path / "out.gguf"
    small_model(source)
    requantize_q8_0(source, target)
    before = gguf.GGUFReader(source).fields
    after = gguf.GGUFReader(target).fields
    assert list(after)[-1] == "general.file_type"
    assert after["general.file_type"].contents() == FILE_TYPE_Q8_0
    assert before["general.file_type"].contents() == 3
    kept = [name for name in before if name != "general.file_type"]
    assert [name for name in after if name != "general.file_type"] == kept
    for name in kept:
        if not name.startswith("GGUF."):
            assert after[name].contents() == before[name].contents(), name


def test_tensor_order_puts_blocks_by_number() -> None:
    assert sorted(["blk.10.a", "blk.2.a", "output.weight", "blk.2.b"], key=tensor_order) == [
        "output.weight",
        "blk.2.a",
        "blk.2.b",
        "blk.10.a",
    ]


def test_prepare_packaged_without_llama_quantize_re_encodes_with_gguf(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    shipped = tmp_path / "shipped.gguf"
    small_model(shipped)
    monkeypatch.setattr(weights, "PREPARED_DIR", tmp_path / "share")
    monkeypatch.setattr(weights, "shipped_file", lambda name: shipped)
    made = local_model.prepare_packaged()
    assert made == [tmp_path / "share" / "SmolLM2-135M-Instruct.Q8_0.gguf"]
    reader = gguf.GGUFReader(made[0])
    assert reader.fields["general.file_type"].contents() == FILE_TYPE_Q8_0
    assert not list((tmp_path / "share").glob("*.partial"))
    assert local_model.prepare_packaged() == []  # kept
