"""REPORT: A self-contained HTML report: no network, no external assets.

Per document: the header, the findings table (filterable by severity), the provenance table,
the effective-pod differences, and the old and new YAML side by side with changed lines
highlighted.
"""

from __future__ import annotations

import difflib
import html
from typing import Any

from migrator.report.review import ReviewDocument

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#1f2328}
header{padding:16px 24px;background:#f6f8fa;border-bottom:1px solid #d0d7de}
main{padding:0 24px 40px}h1{font-size:20px;margin:0 0 6px}h2{font-size:16px;margin:28px 0 8px}
h3{font-size:14px;margin:16px 0 6px}code,pre,td.src{font:12px/1.4 ui-monospace,Menlo,monospace}
table{border-collapse:collapse;width:100%;margin:6px 0}th,td{border:1px solid #d0d7de;
padding:4px 6px;text-align:left;vertical-align:top;overflow-wrap:anywhere}th{background:#f6f8fa}
.sev-error{color:#cf222e;font-weight:600}.sev-warning{color:#9a6700;font-weight:600}
.sev-info{color:#57606a}.filters label{margin-right:14px}.doc{border:1px solid #d0d7de;
border-radius:6px;padding:4px 14px 14px;margin:18px 0}.side{display:grid;
grid-template-columns:1fr 1fr;gap:8px}.side pre{margin:0;overflow:auto;border:1px solid #d0d7de;
padding:6px;background:#fff}.side div.line{white-space:pre}.del{background:#ffebe9}
.add{background:#dafbe1}.muted{color:#57606a}
"""

SCRIPT = """
function applyFilters(){
  var boxes=document.querySelectorAll('.filters input[type=checkbox]');
  var shown={};boxes.forEach(function(b){shown[b.value]=b.checked;});
  document.querySelectorAll('tr.finding').forEach(function(row){
    row.style.display=shown[row.getAttribute('data-severity')]?'':'none';});
}
document.addEventListener('DOMContentLoaded',function(){
  var hidden=(location.hash.match(/hide=([a-z,]+)/)||[,''])[1].split(',');
  document.querySelectorAll('.filters input[type=checkbox]').forEach(function(b){
    if(hidden.indexOf(b.value)>=0){b.checked=false;}
    b.addEventListener('change',applyFilters);});
  applyFilters();
  document.body.setAttribute('data-ready','1');
});
"""


def render(documents: list[ReviewDocument], summary: dict[str, Any], target: str) -> str:
    docs, findings = summary["documents"], summary["findings"]
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>trainjob-migrate report</title>",
             '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
             "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">",
             f"<style>{STYLE}</style></head><body>",
             "<header><h1>trainjob-migrate report</h1>",
             f"<div>Target: Kubeflow Trainer {_e(target)} · {summary['files']} files · "
             f"{docs['converted']} converted · {docs['unchanged']} unchanged · "
             f"{docs['skipped']} skipped · {docs['failed']} failed</div>",
             f"<div>Findings: <span class='sev-error'>{findings['error']} error</span> · "
             f"<span class='sev-warning'>{findings['warning']} warning</span> · "
             f"<span class='sev-info'>{findings['info']} info</span></div>",
             '<div class="filters" id="filters">Show: ' + "".join(
                 f'<label><input type="checkbox" value="{s}" checked> {s}</label>'
                 for s in ("error", "warning", "info")) + "</div></header><main>"]
    for number, doc in enumerate(documents):
        parts.append(_document(doc, number))
    parts += ["</main>", f"<script>{SCRIPT}</script>", "</body></html>"]
    return "\n".join(parts) + "\n"


def _document(doc: ReviewDocument, number: int) -> str:
    counts = doc.counts()
    where = f"{doc.file}:{doc.line}" if doc.line else doc.file
    parts = [f'<section class="doc" id="doc-{number}">',
             f"<h2><code>{_e(where)}</code> — {_e(doc.title)}</h2>",
             f"<div class='muted'>status: <b>{_e(doc.status)}</b> · "
             + " · ".join(f"{n} {s}" for s, n in counts.items()) + "</div>"]
    if doc.findings:
        parts += ["<h3>Not carried over / to check</h3>", '<table class="findings"><thead><tr>'
                  "<th>severity</th><th>code</th><th>where</th><th>message</th><th>fix</th>"
                  "</tr></thead><tbody>"]
        for finding in doc.ordered_findings():
            sev = finding.severity.value
            at = f"{finding.path} (line {finding.line})" if finding.line else finding.path
            parts.append(f'<tr class="finding" data-severity="{sev}"><td class="sev-{sev}">'
                         f"{sev}</td><td><code>{_e(finding.code)}</code></td><td><code>"
                         f"{_e(at)}</code></td><td>{_e(finding.message)}</td><td>"
                         f"{_e(finding.hint)}</td></tr>")
        parts.append("</tbody></table>")
    if doc.mappings:
        parts += ["<h3>Provenance</h3>", '<table class="provenance"><thead><tr><th>from</th>'
                  "<th>to</th><th>value</th></tr></thead><tbody>"]
        for source, target in doc.mappings:
            value = doc.values.get(source)
            parts.append(f"<tr><td><code>{_e(source)}</code></td><td><code>{_e(target)}</code>"
                         f"</td><td>{_e('' if value is None else str(value))}</td></tr>")
        parts.append("</tbody></table>")
    if doc.differences:
        parts += ["<h3>Effective pods: what Trainer will run vs the legacy pods</h3>",
                  "<ul class='differences'>"]
        parts += [f"<li><code>{_e(d.describe())}</code></li>" for d in doc.differences]
        parts.append("</ul>")
    if doc.status == "converted":
        parts += ["<h3>Old and new YAML</h3>", _side_by_side(doc.before, doc.after)]
    parts.append("</section>")
    return "\n".join(parts)


def _side_by_side(before: str, after: str) -> str:
    old, new = before.splitlines(), after.splitlines()
    left, right = [], []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            left += [_line(line, "") for line in old[i1:i2]]
            right += [_line(line, "") for line in new[j1:j2]]
            continue
        left += [_line(line, "del") for line in old[i1:i2]]
        right += [_line(line, "add") for line in new[j1:j2]]
    return ('<div class="side"><pre class="old">' + "".join(left) + '</pre><pre class="new">'
            + "".join(right) + "</pre></div>")


def _line(text: str, kind: str) -> str:
    css = f"line {kind}".strip()
    return f'<div class="{css}">{_e(text) or " "}</div>'


def _e(text: str) -> str:
    return html.escape(text, quote=True)
