"""REPORT: a self-contained HTML report for reviewers — no network, strict CSP.

An overview first (documents by status, findings by code with names and severities, each
linking to its documents), a sticky filter bar (status, severity, code, text), then the
documents: failed → converted with warnings → converted → skipped; skipped and unchanged
documents without findings are one table row each. A document's findings, provenance,
effective-pod differences and aligned side-by-side diff are rendered in the browser when it
is opened, from one embedded JSON table in which every distinct string (a message, a hint, a
YAML text) is stored once — so thousands of documents stay within a few megabytes.

Each card shows its headline finding; its codes link to their row of the codes table (which
names the docs/codes.md heading); identical findings are one row; the side-by-side view pairs
the legacy job with the TrainJob that replaces it and shows a companion runtime as a new
object. The text filter runs once typing pauses; anchors land below the sticky bar; below
700 px the findings tables become stacked cards (no horizontal scrolling on a phone).
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from migrator.report.markup import doc_anchor, html_text, plural, shorten, shorten_end
from migrator.report.review import ReviewDocument, group

PATH_WIDTH = 72
HEADLINE_WIDTH = 200
GROUPS = (("failed", "failed or with errors"), ("warnings", "converted with warnings"),
          ("converted", "converted"), ("skipped", "skipped with findings"),
          ("unchanged", "skipped or unchanged, no findings"))


class CodeInfo(Protocol):
    name: str
    severity: str
    summary: str


STYLE = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1f2328}
header{padding:14px 24px 8px;background:#f6f8fa}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:22px 0 8px}
h3{font-size:14px;margin:0;font-weight:600}
main{padding:0 24px 40px}
code,.mono{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
nav.filters{position:sticky;top:0;z-index:5;background:#fff;border-bottom:1px solid #d0d7de;
padding:8px 24px;display:flex;flex-wrap:wrap;gap:6px 16px;align-items:center}
nav.filters label{white-space:nowrap}nav.filters input[type=search]{width:16em}
table{border-collapse:collapse;margin:6px 0}
th,td{border:1px solid #d0d7de;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa;white-space:nowrap}
td.msg{overflow-wrap:break-word;min-width:12em}
.nw{white-space:nowrap}.ref{display:inline-block;max-width:100%;overflow-wrap:anywhere}
code.path{overflow-wrap:anywhere}
.sev-error{color:#cf222e;font-weight:600}.sev-warning{color:#9a6700;font-weight:600}
.sev-info{color:#57606a}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;
border:1px solid #d0d7de}
.st-failed,.st-errors{background:#ffebe9;border-color:#ff818266}
.st-warnings{background:#fff8c5}.st-converted{background:#dafbe1}
.doc{border:1px solid #d0d7de;border-radius:6px;padding:8px 12px;margin:10px 0;
content-visibility:auto;contain-intrinsic-size:auto 60px}
.doc h3 a.anchor{color:#8c959f;text-decoration:none;margin-right:4px}
.doc .title{margin:0 6px}.counts{color:#57606a;font-weight:400}
details.doc-body>summary{cursor:pointer;color:#0969da;margin-top:4px}
.body h4{font-size:13px;margin:12px 0 4px}
.scroll{overflow-x:auto;max-width:100%}
table.sbs{width:100%;table-layout:fixed}
table.sbs td{border:0;padding:0 6px;font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace;
white-space:pre-wrap;overflow-wrap:anywhere}
table.sbs col.ln{width:3.5em}
table.sbs td.ln{text-align:right;color:#8c959f;white-space:nowrap;
user-select:none}
table.sbs tr.dl td.del{background:#ffebe9}table.sbs tr.dl td.add{background:#dafbe1}
table.sbs tr.fold td{background:#ddf4ff;color:#57606a;cursor:pointer;text-align:center}
.muted{color:#57606a}.empty{color:#57606a;font-style:italic}
[hidden]{display:none!important}
:target,.doc,tr.other,tr[id^=code-]{scroll-margin-top:var(--bar,64px)}
.headline{margin:4px 0 0;font-weight:400;overflow-wrap:anywhere}.headline .msg{color:#1f2328}
.headline a{text-decoration:none}
td.msg code,td a code{overflow-wrap:anywhere}
td.where code.path{display:block}td.where{min-width:16em}
button.expand{font:inherit;font-size:13px;padding:1px 8px;cursor:pointer}
@media (max-width:700px){
header{padding:10px 12px 6px}main{padding:0 12px 24px}
nav.filters{padding:6px 12px;gap:4px 10px}
nav.filters input[type=search]{width:11em}
.doc{padding:6px 8px}
.doc h3 .title{display:block;margin:2px 0}
.doc h3{overflow-wrap:anywhere}
table.findings,table.findings tbody,table.findings tr,table.findings td{display:block}
table.findings thead{display:none}
table.findings tr{border:1px solid #d0d7de;border-radius:4px;margin:0 0 6px;padding:2px 0}
table.findings td,table.findings td.where{border:0;padding:1px 6px;min-width:0}
table.findings td.nw{display:inline-block}
table.codes,table.codes tbody,table.codes tr,table.codes td{display:block}
table.codes thead{display:none}
table.codes tr{border:1px solid #d0d7de;border-radius:4px;margin:0 0 6px;padding:2px 0}
table.codes td,table.codes td.msg{border:0;padding:1px 6px;min-width:0}
table.codes td.nw,table.codes td.count{display:inline-block}
table.codes td.count::after{content:" findings";color:#57606a}
}
"""

SCRIPT = """
(function(){
'use strict';
var data=JSON.parse(document.getElementById('report-data').textContent),S=data.s;
var CONTEXT=3;
function $(q,r){return (r||document).querySelector(q);}
function $$(q,r){return Array.prototype.slice.call((r||document).querySelectorAll(q));}
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;
  if(text!==undefined&&text!==null)e.textContent=text;return e;}
function cell(row,cls,text,title){var td=el('td',cls,text);if(title)td.title=title;
  row.appendChild(td);return td;}
function table(heads){var t=el('table'),h=el('tr');heads.forEach(function(x){
  h.appendChild(el('th',null,x));});var th=el('thead');th.appendChild(h);t.appendChild(th);
  var b=el('tbody');t.appendChild(b);return [t,b];}
var SEV=['error','warning','info'];
function cut(w){if(w.length<=60)return w;var i=w.length-59;  // at a path segment
  while(i<w.length&&'./'.indexOf(w[i-1])<0&&w[i]!=='[')i++;
  return '\\u2026'+(i<w.length?w.slice(i):w.slice(-59));}
function findings(box,d){
  if(!d.f.length)return;
  box.appendChild(el('h4',null,'Findings'));
  var tb=table(['severity','code','where','message','fix']),groups=[],at={};
  tb[0].className='findings';
  d.f.forEach(function(f){var k=f[0]+' '+f[1]+' '+f[4]+' '+f[5];  // identical findings: one row
    if(!(k in at)){at[k]=groups.length;groups.push([f,[]]);}
    groups[at[k]][1].push(S[f[2]]+(f[3]?' (line '+f[3]+')':''));});
  groups.forEach(function(g){var f=g[0],tr=el('tr','finding');tr.dataset.severity=SEV[f[1]];
    cell(tr,'nw sev-'+SEV[f[1]],SEV[f[1]]+(g[1].length>1?' \\u00d7'+g[1].length:''));
    var c=cell(tr,'nw'),link=el('a');link.href='#code-'+S[f[0]];
    link.title='what '+S[f[0]]+' means';link.appendChild(el('code',null,S[f[0]]));
    c.appendChild(link);
    var w=cell(tr,'where');g[1].forEach(function(where){if(!where)return;
      var wc=el('code','path',cut(where));wc.title=where;w.appendChild(wc);});
    cell(tr,'msg',S[f[4]]);cell(tr,'msg',S[f[5]]);tb[1].appendChild(tr);});
  box.appendChild(tb[0]);
  box.appendChild(el('p','empty filtered-note',
    'All findings of this document are hidden by the severity filter.'));
}
function provenance(box,d){
  if(!d.m||!d.m.length)return;
  box.appendChild(el('h4',null,'Provenance: where each value came from'));
  var tb=table(['from','to','value']);
  d.m.forEach(function(m){var tr=el('tr');
    [m[0],m[1]].forEach(function(i){var c=cell(tr,null);c.appendChild(el('code','path',S[i]));});
    var v=cell(tr,null);if(m[2]>=0)v.appendChild(el('code',null,S[m[2]]));tb[1].appendChild(tr);});
  var s=el('div','scroll');s.appendChild(tb[0]);box.appendChild(s);
}
function differences(box,d){
  if(!d.x||!d.x.length)return;
  box.appendChild(el('h4',null,'Simulated: pods and outcomes under Trainer vs the legacy one'));
  var ul=el('ul');d.x.forEach(function(i){var li=el('li');li.appendChild(el('code',null,S[i]));
    ul.appendChild(li);});box.appendChild(ul);
}
function row(tb,a,i,b,j,kind,off){var tr=el('tr','dl');
  cell(tr,'ln',i>=0?String(i+1):'');cell(tr,kind&&i>=0?'del':'',i>=0?a[i]:'');
  cell(tr,'ln',j>=0?String(j+off):'');cell(tr,kind&&j>=0?'add':'',j>=0?b[j]:'');
  tb.appendChild(tr);}
function fold(tb,a,b,i1,j1,n,off){var tr=el('tr','fold');var td=el('td',null,
  '\\u22ef '+n+' unchanged line'+(n===1?'':'s'));td.colSpan=4;tr.appendChild(td);
  td.addEventListener('click',function(){var frag=document.createDocumentFragment();
    for(var k=0;k<n;k++)row(frag,a,i1+k,b,j1+k,false,off);tr.replaceWith(frag);});
  tb.appendChild(tr);}
function sbs(box,a,b,ops,off){
  var t=el('table','sbs'),cg=el('colgroup');
  ['ln','','ln',''].forEach(function(c){var col=el('col');if(c)col.className=c;
    cg.appendChild(col);});
  t.appendChild(cg);var tb=el('tbody');t.appendChild(tb);
  var whole=ops.length===1;
  ops.forEach(function(op,n){var tag=op[0],i1=op[1],i2=op[2],j1=op[3],j2=op[4];
    if(tag===0){var len=i2-i1,head=n===0?0:CONTEXT,tail=n===ops.length-1?0:CONTEXT;
      if(!whole&&len>head+tail+1){for(var k=0;k<head;k++)row(tb,a,i1+k,b,j1+k,false,off);
        fold(tb,a,b,i1+head,j1+head,len-head-tail,off);
        for(k=len-tail;k<len;k++)row(tb,a,i1+k,b,j1+k,false,off);}
      else for(k=0;k<len;k++)row(tb,a,i1+k,b,j1+k,false,off);return;}
    var m=Math.max(i2-i1,j2-j1);for(var q=0;q<m;q++)
      row(tb,a,i1+q<i2?i1+q:-1,b,j1+q<j2?j1+q:-1,true,off);});
  box.appendChild(t);
}
function diff(box,d){
  if(!d.o)return;
  box.appendChild(el('h4',null,d.b!==d.a?(d.n?'Legacy job and the TrainJob that replaces it':
    'Old and new YAML'):d.st==='converted'?'Source YAML (convert writes the new YAML)':
    'Source YAML'));
  sbs(box,S[d.b].split('\\n'),S[d.a].split('\\n'),d.o,d.al||1);
  (d.n||[]).forEach(function(n){var lines=S[n[1]].split('\\n');
    box.appendChild(el('h4',null,'New object: '+S[n[0]]+' (written with the TrainJob)'));
    sbs(box,[],lines,[[3,0,0,0,lines.length]],n[2]);});
}
function render(details){
  var box=$('.body',details);if(box.dataset.done)return;box.dataset.done='1';
  var d=data.d[+details.dataset.i];
  findings(box,d);if(d.st==='converted'){provenance(box,d);}differences(box,d);diff(box,d);
  severityFilter(box);
}
function hiddenSeverities(){return $$('input.sev-filter').filter(function(b){return !b.checked;})
  .map(function(b){return b.value;});}
function severityFilter(box){var hide=hiddenSeverities(),rows=$$('tr.finding',box),shown=0;
  rows.forEach(function(r){r.hidden=hide.indexOf(r.dataset.severity)>=0;if(!r.hidden)shown++;});
  var t=rows.length?rows[0].closest('table'):null;if(t)t.hidden=shown===0;
  var note=$('.filtered-note',box);if(note)note.hidden=!(rows.length&&shown===0);}
var docs=$$('section.doc'),others=$$('tr.other');
// what the filters read, taken from the page once (not from the DOM on every keystroke)
var docText=docs.map(function(s){return (s.textContent+' '+s.dataset.codes).toLowerCase();});
var docCodes=docs.map(function(s){return ' '+s.dataset.codes+' ';});
var docSevs=docs.map(function(s){return s.dataset.sev?s.dataset.sev.split(' '):[];});
var docStatus=docs.map(function(s){return s.dataset.status;});
var otherText=others.map(function(r){return r.textContent.toLowerCase();});
var otherStatus=others.map(function(r){return r.dataset.status;});
var shownNow=docs.map(function(s){return !s.hidden;}),otherNow=others.map(function(r){
  return !r.hidden;}),hiddenBefore=null;
function apply(){
  var st=$('#f-status').value,code=$('#f-code').value,q=$('#f-text').value.toLowerCase();
  var hide=hiddenSeverities(),shown=0,wanted=code?' '+code+' ':'';
  for(var n=0;n<docs.length;n++){var sevs=docSevs[n],ok=(!st||docStatus[n]===st)&&
      (!wanted||docCodes[n].indexOf(wanted)>=0)&&(!q||docText[n].indexOf(q)>=0);
    if(ok&&sevs.length&&hide.length){ok=false;
      for(var k=0;k<sevs.length;k++){if(hide.indexOf(sevs[k])<0){ok=true;break;}}}
    if(shownNow[n]!==ok){shownNow[n]=ok;docs[n].hidden=!ok;}  // only what changes
    if(ok)shown++;}
  for(var m=0;m<others.length;m++){var on=!code&&(!st||otherStatus[m]===st)&&
      (!q||otherText[m].indexOf(q)>=0);
    if(otherNow[m]!==on){otherNow[m]=on;others[m].hidden=!on;}}
  var key=hide.join(',');  // the open cards' rows: only when the severities changed
  if(key!==hiddenBefore){hiddenBefore=key;$$('.body[data-done]').forEach(severityFilter);}
  $('#f-count').textContent=shown+' of '+docs.length+' documents shown';
  requestAnimationFrame(bar);  // (measuring the bar now would lay out the whole page)
}
function bar(){document.documentElement.style.setProperty('--bar',  // anchors land below it
  Math.ceil($('#filters').getBoundingClientRect().height+12)+'px');}
function land(target){  // below the sticky bar, once the cards above have their height
  bar();target.scrollIntoView();requestAnimationFrame(function(){target.scrollIntoView();});}
function fromHash(){var h=decodeURIComponent(location.hash.slice(1));
  if(h.indexOf('doc-')===0){var target=document.getElementById(h);
    if(target){var det=$('details.doc-body',target);if(det)det.open=true;land(target);}return;}
  if(h.indexOf('code-')===0&&document.getElementById(h)){land(document.getElementById(h));return;}
  var values={};h.split('&').forEach(function(p){var kv=p.split('=');
    if(kv.length===2)values[kv[0]]=kv[1];});
  if('code' in values||'status' in values||'hide' in values||'q' in values){
    $('#f-code').value=values.code||'';$('#f-status').value=values.status||'';
    $('#f-text').value=values.q||'';var hide=(values.hide||'').split(',');
    $$('input.sev-filter').forEach(function(b){b.checked=hide.indexOf(b.value)<0;});
    apply();var list=document.getElementById('documents');
    if(list&&document.readyState!=='loading'&&(values.code||values.status))list.scrollIntoView();}
}
function address(){var parts=[];var c=$('#f-code').value,s=$('#f-status').value,
  q=$('#f-text').value;
  var hide=hiddenSeverities();if(s)parts.push('status='+s);if(c)parts.push('code='+c);
  if(hide.length)parts.push('hide='+hide.join(','));if(q)parts.push('q='+encodeURIComponent(q));
  history.replaceState(null,'',parts.length?'#'+parts.join('&'):location.pathname);}
function toHash(){address();apply();}
// the search filters as soon as a keystroke's task ends (keystrokes typed together are
// filtered once); on a page where a filter run is slow (over 50 ms) it waits for typing to
// pause instead. The address (#q=...) follows once typing pauses.
var typing=0,addressing=0,slow=false;
function search(){var started=performance.now();apply();slow=performance.now()-started>50;}
$$('#filters select,#filters input').forEach(function(x){
  if(x.type==='search')x.addEventListener('input',function(){clearTimeout(typing);
    clearTimeout(addressing);typing=setTimeout(search,slow?180:0);
    addressing=setTimeout(address,180);});else x.addEventListener('change',toHash);});
var expand=$('#f-expand');
expand.addEventListener('click',function(){var open=expand.dataset.open!=='1';
  docs.forEach(function(s){if(!s.hidden||!open){var d=$('details.doc-body',s);
    if(d.open!==open)d.open=open;}});
  expand.dataset.open=open?'1':'';expand.textContent=open?'collapse all':'expand all';});
window.addEventListener('resize',bar);
$$('details.doc-body').forEach(function(d){d.addEventListener('toggle',function(){
  if(d.open)render(d);});if(d.open)render(d);});
window.addEventListener('hashchange',fromHash);
apply();fromHash();
document.body.dataset.ready='1';
})();
"""


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()) \
        .decode("ascii") + "'"


CSP = (f"default-src 'none'; style-src {_hash(STYLE)}; script-src {_hash(SCRIPT)}; "
       "img-src data:; base-uri 'none'; form-action 'none'")


class _Strings:
    """Every distinct string of the report once; documents refer to them by number."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.index: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.items)
            self.items.append(text)
        return found


def render(documents: Sequence[ReviewDocument], summary: Mapping[str, Any], target: str,
           codes: Mapping[str, CodeInfo], *, waivers: Sequence[Mapping[str, Any]] = ()) -> str:
    grouped = {name: [d for d in documents if group(d) == name] for name, _ in GROUPS}
    ordered = [d for name, _ in GROUPS[:4] for d in grouped[name]]
    strings = _Strings()
    payload: list[dict[str, Any]] = []  # distinct document details (copies share one)
    seen: dict[str, int] = {}
    numbers = []
    for doc in ordered:
        item = _payload(doc, strings)
        key = json.dumps(item, sort_keys=True)
        if key not in seen:
            seen[key] = len(payload)
            payload.append(item)
        numbers.append(seen[key])
    root = _root(documents)
    anchors = _anchors(documents)
    docs, findings = summary["documents"], summary["findings"]
    total = sum(docs.values())
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
             "<title>trainjob-migrate report</title>", f"<style>{STYLE}</style></head><body>",
             "<header><h1>trainjob-migrate report</h1>",
             f"<div>Target: Kubeflow Trainer {html_text(target)} · "
             f"{plural(summary['files'], 'file')}, {plural(total, 'document')} · findings: "
             f"<span class='sev-error'>{findings['error']} "
             f"error</span> · <span class='sev-warning'>{findings['warning']} warning</span> · "
             f"<span class='sev-info'>{findings['info']} info</span></div></header>",
             _filters(summary), "<main>", _waivers(waivers), _overview(grouped, summary, codes),
             '<section id="documents"><h2>Documents</h2>']
    if not ordered:
        parts.append("<p class='empty'>No document needs a look.</p>")
    parts += [_section(doc, number, anchors[id(doc)], root)
              for number, doc in zip(numbers, ordered, strict=True)]
    parts.append("</section>")
    parts.append(_others(grouped["unchanged"], anchors))
    blob = json.dumps({"s": strings.items, "d": payload}, ensure_ascii=True,
                      separators=(",", ":")).replace("<", "\\u003c").replace(">", "\\u003e") \
        .replace("&", "\\u0026")
    parts += ["</main>", f'<script type="application/json" id="report-data">{blob}</script>',
              f"<script>{SCRIPT}</script>", "</body></html>"]
    return "\n".join(parts) + "\n"


def _filters(summary: Mapping[str, Any]) -> str:
    statuses = "".join(f'<option value="{name}">{label}</option>' for name, label in GROUPS[:4])
    codes = "".join(f'<option value="{html_text(code)}">{html_text(code)}</option>'
                    for code in sorted(summary.get("codes") or {}))
    severities = "".join(f'<label class="sev-{s}"><input type="checkbox" class="sev-filter" '
                         f'value="{s}" checked> {s}</label>' for s in ("error", "warning", "info"))
    return ('<nav id="filters" class="filters" aria-label="filters">'
            f'<label>status <select id="f-status"><option value="">all</option>{statuses}'
            f'</select></label>{severities}<label>code <select id="f-code"><option value="">'
            f'all</option>{codes}</select></label><label>search <input id="f-text" '
            f'type="search" placeholder="file, kind, name, code"></label>'
            '<button type="button" id="f-expand" class="expand">expand all</button>'
            '<span id="f-count" class="muted"></span></nav>')


def _overview(grouped: Mapping[str, Sequence[ReviewDocument]], summary: Mapping[str, Any],
              codes: Mapping[str, CodeInfo]) -> str:
    rows = []
    for name, label in GROUPS:
        count = len(grouped[name])
        link = f'<a href="#status={name}">{label}</a>' if count and name != "unchanged" else \
            (f'<a href="#others">{label}</a>' if count else label)
        rows.append(f'<tr><td class="nw"><span class="badge st-{name}">{name}</span></td>'
                    f"<td>{link}</td><td>{count}</td></tr>")
    parts = ['<section id="overview"><h2>Overview</h2><div class="scroll">',
             "<table class='statuses'><thead><tr><th>status</th><th>documents</th><th>count"
             "</th></tr></thead><tbody>", *rows, "</tbody></table></div>"]
    counted = summary.get("codes") or {}
    if counted:
        parts += ["<h2>Findings by code</h2><div class='scroll'><table class='codes'><thead>"
                  "<tr><th>code</th><th>name</th><th>severity</th><th>findings</th><th>what it "
                  "means</th></tr></thead><tbody>"]
        order = {"error": 0, "warning": 1, "info": 2}
        for code, count in sorted(counted.items(), key=lambda item: (
                order.get(codes[item[0]].severity if item[0] in codes else "", 3), item[0])):
            info = codes.get(code)
            severity = info.severity if info else ""
            parts.append(f'<tr id="code-{html_text(code)}"><td class="nw"><a href="#code='
                         f'{html_text(code)}"><code>{html_text(code)}</code></a></td>'
                         f'<td class="nw">{html_text(info.name) if info else ""}</td>'
                         f'<td class="nw sev-{severity}">{severity}</td>'
                         f'<td class="count">{count}</td>'
                         f'<td class="msg">{html_text(info.summary) if info else ""}'
                         f"{_reference(code, info)}</td></tr>")
        parts.append("</tbody></table></div>")
    parts.append("</section>")
    return "\n".join(parts)


def _reference(code: str, info: CodeInfo | None) -> str:
    """Where the project's documentation describes a code (docs/codes.md and the heading's
    anchor): text, not a link, as the report's own folder holds no docs/."""
    if info is None:
        return ""
    return f' <span class="muted ref">docs/codes.md#{html_text(doc_anchor(code, info.name))}' \
        '</span>'


def _section(doc: ReviewDocument, number: int, anchor: str, root: str) -> str:
    counts = doc.counts()
    where = f"{doc.file}:{doc.line}" if doc.line else doc.file
    shown = shorten(_relative(where, root), PATH_WIDTH)
    title = f' title="{html_text(where)}"' if shown != where else ""
    codes = " ".join(sorted({f.code for f in doc.findings}))
    severities = " ".join(s for s, n in counts.items() if n)
    tally = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no findings"
    name = group(doc)
    return (f'<section class="doc" id="{anchor}" data-status="{name}" '
            f'data-codes="{html_text(codes)}" data-sev="{severities}"><h3>'
            f'<a class="anchor" href="#{anchor}">#</a><code class="path"{title}>'
            f'{html_text(shown)}</code><span class="title">{html_text(doc.title)}</span>'
            f'<span class="badge nw st-{name}">{html_text(doc.status)}</span> '
            f'<span class="counts">{tally}</span></h3>{_headline(doc)}<details class="doc-body" '
            f'data-i="{number}"><summary>details</summary><div class="body"></div></details>'
            "</section>")


def _headline(doc: ReviewDocument) -> str:
    """The card's first error (else its first warning): code and message, on the card."""
    findings = [f for f in doc.ordered_findings() if f.severity.value != "info"]
    if not findings:
        return ""
    first = findings[0]
    more = f" (+{len(findings) - 1} more)" if len(findings) > 1 else ""
    return (f'<p class="headline sev-{first.severity.value}"><a href="#code-'
            f'{html_text(first.code)}"><code>{html_text(first.code)}</code></a> '
            f'<span class="msg">{html_text(shorten_end(first.message, HEADLINE_WIDTH))}'
            f"</span>{more}</p>")


def _root(documents: Sequence[ReviewDocument]) -> str:
    """The folder all documents are in; headings show paths below it (full path on hover)."""
    folders = sorted({os.path.dirname(doc.file) for doc in documents})
    if not folders:
        return ""
    try:
        root = os.path.commonpath(folders)
    except ValueError:
        return ""
    return "" if root in ("", ".", "/") else root


def _relative(name: str, root: str) -> str:
    return name[len(root) + 1:] if root and name.startswith(root + os.sep) else name


def _others(documents: Sequence[ReviewDocument], anchors: Mapping[int, str]) -> str:
    if not documents:
        return ""
    rows = []
    for doc in documents:
        where = f"{doc.file}:{doc.line}" if doc.line else doc.file
        rows.append(f'<tr class="other" id="{anchors[id(doc)]}" data-status="{doc.status}">'
                    f'<td><code class="path" title="{html_text(where)}">'
                    f"{html_text(shorten(where, PATH_WIDTH))}</code></td><td>"
                    f"{html_text(doc.title)}</td><td class='nw'>{html_text(doc.status)}</td></tr>")
    return (f'<section id="others"><h2>Skipped or unchanged, nothing to check '
            f"({len(documents)})</h2><div class='scroll'><table><thead><tr><th>file</th>"
            "<th>object</th><th>status</th></tr></thead><tbody>" + "".join(rows)
            + "</tbody></table></div></section>")


def _waivers(waivers: Sequence[Mapping[str, Any]]) -> str:
    """The run's waivers: who accepted which code, why, and how many findings it accepted."""
    if not waivers:
        return ""
    rows = "".join(
        f"<tr><td><code>{html_text(w['code'] + ('=' + w['choice'] if w.get('choice') else ''))}"
        f"</code></td><td>{html_text(w['origin'])}</td><td>"
        f"{html_text(w['reason'] or '(none given)')}</td><td>{w['used']}</td></tr>"
        for w in waivers)
    return ("<section id='waivers'><h2>Waivers</h2><table><thead><tr><th>waiver</th>"
            "<th>given by</th><th>reason</th><th>findings</th></tr></thead><tbody>" + rows
            + "</tbody></table></section>")


def _payload(doc: ReviewDocument, strings: _Strings) -> dict[str, Any]:
    severity = {"error": 0, "warning": 1, "info": 2}
    item: dict[str, Any] = {"st": doc.status, "f": [
        [strings(f.code), severity[f.severity.value], strings(f.path), f.line or 0,
         strings(f"{f.message} (waived: {f.waived})" if f.waived else f.message),
         strings(f.hint)] for f in doc.ordered_findings()]}
    if doc.status == "converted" and doc.mappings:
        item["m"] = [[strings(source), strings(target),
                      strings(str(doc.values[source])) if source in doc.values else -1]
                     for source, target in doc.mappings]
    if doc.differences:
        item["x"] = [strings(d.describe()) for d in doc.differences]
    if doc.before or doc.after:
        replacing, line, added = doc.paired()
        before, after = doc.before.rstrip("\n"), replacing.rstrip("\n")
        item["b"], item["a"] = strings(before), strings(after)
        item["o"] = _line_opcodes(before.split("\n"), after.split("\n"))
        if line != 1:
            item["al"] = line
        if added:
            item["n"] = [[strings(label), strings(text.rstrip("\n")), start]
                         for label, text, start in added]
    return item


MAX_ALIGNED_LINES = 4000  # lines of a document's two sides aligned exactly (below)


def _line_opcodes(before: list[str], after: list[str]) -> list[list[int]]:
    """The side-by-side alignment of a document's lines. Exact (no line taken for junk) up
    to ``MAX_ALIGNED_LINES``; above, lines that recur often are junk to difflib's matcher, which
    is otherwise quadratic or worse in them (a job of 10,000 alike roles took minutes)."""
    matcher = difflib.SequenceMatcher(a=before, b=after,
                                      autojunk=len(before) + len(after) > MAX_ALIGNED_LINES)
    tags = {"equal": 0, "replace": 1, "delete": 2, "insert": 3}
    return [[tags[tag], i1, i2, j1, j2] for tag, i1, i2, j1, j2 in matcher.get_opcodes()]


def _anchors(documents: Sequence[ReviewDocument]) -> dict[int, str]:
    """A stable anchor per document (from its file and index), unique within the report."""
    seen: set[str] = set()
    anchors = {}
    for doc in documents:
        digest = hashlib.sha1(f"{doc.file}\0{doc.index}".encode("utf-8", "surrogateescape"),
                              usedforsecurity=False).hexdigest()[:10]
        anchor, number = f"doc-{digest}", 1
        while anchor in seen:
            number += 1
            anchor = f"doc-{digest}-{number}"
        seen.add(anchor)
        anchors[id(doc)] = anchor
    return anchors
