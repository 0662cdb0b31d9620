"""One self-contained HTML page per game (no scripts, no external files).

Jinja2 autoescaping is on: every piece of player or model text is escaped, so
a speech can never inject markup into the page.
"""

from __future__ import annotations

from jinja2 import Environment, StrictUndefined

from sandbox.render.timeline import Timeline

TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{{ t.title }} ({{ t.audience }})</title>
<style>
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;
 color:#222;line-height:1.45}
h1{font-size:1.4rem} h2{font-size:1.1rem;border-bottom:2px solid #4a6fa5;color:#4a6fa5;
 margin-top:2rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}
dl.facts dt{color:#666}
.card{background:#f5eefc;border-left:4px solid #8a4fc7;padding:.5rem 1rem}
.entry{margin:.35rem 0}
blockquote.speech{margin:.5rem 0;padding:.4rem .8rem;background:#f7f7f2;
 border-left:4px solid #bbb;white-space:pre-wrap}
blockquote.speech cite{display:block;font-style:normal;font-weight:bold;color:#555}
.referee{background:#e8f1fb;border-left:4px solid #2b6cb0;padding:.3rem .8rem;
 font-weight:600;color:#1a4f85}
.decision{color:#666;font-size:.9rem;padding-left:.8rem}
.ending{background:#e6f6ea;border-left:4px solid #2f855a;padding:.4rem .8rem;font-weight:700}
.aud{color:#999;font-size:.75rem;margin-left:.5rem}
.call{color:#888;font-size:.8rem;padding-left:2rem;font-family:monospace}
.beliefs{color:#8a4fc7}
table.outcome{border-collapse:collapse;margin-top:1rem}
table.outcome td,table.outcome th{border:1px solid #ccc;padding:.25rem .7rem}
.win{color:#2f855a;font-weight:700}.lose{color:#c53030}.draw{color:#975a16}
</style></head><body>
<h1>{{ t.title }}</h1>
<dl class="facts">{% for k, v in t.facts %}<dt>{{ k }}</dt><dd>{{ v }}</dd>{% endfor %}</dl>
{% if t.card %}<div class="card"><strong>Your card:</strong>
{% for k, v in t.card %}<br>{{ k }}: {{ v }}{% endfor %}
</div>{% endif %}
{% for s in t.sections %}<section><h2>{{ s.title }}</h2>
{% for e in s.entries %}
{% if e.category == "speech" %}<blockquote class="speech" id="e{{ e.seq }}">
<cite>Seat {{ e.speaker }} says:</cite>{{ e.text }}</blockquote>
{% elif e.category == "decision" %}<div class="entry decision" id="e{{ e.seq }}">{{ e.text }}
<span class="aud">{{ e.audience }}</span></div>
{% else %}<div class="entry referee" id="e{{ e.seq }}">Referee: {{ e.text }}
<span class="aud">{{ e.audience }}</span></div>{% endif %}
{% for c in e.calls %}<div class="call">call: {{ c.summary }}</div>
{% if c.beliefs %}<div class="call beliefs">beliefs: {{ c.beliefs }}</div>{% endif %}
{% endfor %}
{% endfor %}</section>{% endfor %}
<h2>Outcome</h2>
{% if t.outcome_summary %}<p>{{ t.outcome_summary }}</p>{% else %}
<p>The game is unfinished.</p>{% endif %}
<table class="outcome"><tr><th>Seat</th><th>Role</th><th>Agent</th><th>Result</th></tr>
{% for r in t.outcome_rows %}<tr><td>{{ r.seat }}</td><td>{{ r.role or "?" }}</td>
<td>{{ r.agent or "?" }}</td><td class="{{ r.result or '' }}">{{ r.result or "-" }}</td></tr>
{% endfor %}</table>
</body></html>
"""

_ENV = Environment(autoescape=True, undefined=StrictUndefined, trim_blocks=True)


def render_html(timeline: Timeline) -> str:
    return _ENV.from_string(TEMPLATE).render(t=timeline)
