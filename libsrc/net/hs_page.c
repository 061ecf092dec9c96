/* hs_page — the query page a browser gets at / and at /sparql without a
 * query: a form that posts the query to /sparql (form-encoded, Accept
 * SPARQL JSON) and draws the answer as a table, or shows the error the
 * endpoint sent. One self-contained document: no external script, style
 * sheet or font, so it works with no network beyond the server. */
#include <string.h>

#include "net/hs_int.h"

static const char hs_page_html[] =
    "<!DOCTYPE html>\n"
    "<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<title>Cadenza SPARQL</title>\n"
    "<style>\n"
    "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
    "textarea{width:100%;height:12em;font-family:monospace;font-size:14px}\n"
    "table{border-collapse:collapse;margin-top:1em;font-family:monospace;font-size:13px}\n"
    "th,td{border:1px solid #bbb;padding:2px 6px;text-align:left;vertical-align:top}\n"
    "th{background:#eee}#status{margin-top:1em}\n"
    ".error{color:#a00;white-space:pre-wrap;font-family:monospace}\n"
    "</style></head><body>\n"
    "<h1>Cadenza SPARQL</h1>\n"
    "<form id=\"f\" method=\"post\" action=\"/sparql\">\n"
    "<textarea id=\"query\" name=\"query\" spellcheck=\"false\">"
    "SELECT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 100</textarea><br>\n"
    "<label>Results as <select id=\"format\">\n"
    "<option value=\"table\">table</option>\n"
    "<option value=\"application/sparql-results+json\">JSON</option>\n"
    "<option value=\"application/sparql-results+xml\">XML</option>\n"
    "<option value=\"text/csv\">CSV</option>\n"
    "<option value=\"text/tab-separated-values\">TSV</option>\n"
    "<option value=\"text/turtle\">Turtle (CONSTRUCT, DESCRIBE)</option>\n"
    "</select></label>\n"
    "<button id=\"run\" type=\"submit\">Run</button>\n"
    "</form>\n"
    "<div id=\"status\"></div><div id=\"out\"></div>\n"
    "<script>\n"
    "function term(t){if(!t)return '';if(t.type==='uri')return '<'+t.value+'>';\n"
    " if(t.type==='bnode')return '_:'+t.value;var s=JSON.stringify(t.value);\n"
    " if(t['xml:lang'])return s+'@'+t['xml:lang'];if(t.datatype)return s+'^^<'+t.datatype+'>';\n"
    " return s;}\n"
    "function cell(row,text){var td=document.createElement(row.tagName==='THEAD'?'th':'td');\n"
    " td.textContent=text;return td;}\n"
    "function draw(j){var out=document.getElementById('out');out.textContent='';\n"
    " var tb=document.createElement('table');tb.id='results';\n"
    " if('boolean' in j){var r=tb.insertRow();r.appendChild(cell(r,String(j.boolean)));\n"
    "  out.appendChild(tb);return 'ASK: '+j.boolean;}\n"
    " var h=tb.createTHead().insertRow();j.head.vars.forEach(function(v){\n"
    "  var th=document.createElement('th');th.textContent='?'+v;h.appendChild(th);});\n"
    " var body=tb.createTBody();j.results.bindings.forEach(function(b){var r=body.insertRow();\n"
    "  j.head.vars.forEach(function(v){r.insertCell().textContent=term(b[v]);});});\n"
    " out.appendChild(tb);return j.results.bindings.length+' rows';}\n"
    "document.getElementById('f').addEventListener('submit',function(ev){ev.preventDefault();\n"
    " var fmt=document.getElementById('format').value,st=document.getElementById('status');\n"
    " var out=document.getElementById('out');st.textContent='running...';out.textContent='';\n"
    " var t0=performance.now();\n"
    " fetch('/sparql',{method:'POST',headers:{'Content-Type':'application/x-www-form-urlencoded',\n"
    "  'Accept':fmt==='table'?'application/sparql-results+json':fmt},\n"
    "  body:'query='+encodeURIComponent(document.getElementById('query').value)})\n"
    " .then(function(r){return r.text().then(function(b){return [r,b];});})\n"
    " .then(function(rb){var r=rb[0],b=rb[1],ms=Math.round(performance.now()-t0)+' ms';\n"
    "  if(!r.ok){st.textContent='HTTP '+r.status+' ('+ms+')';var d=document.createElement('div');\n"
    "   d.className='error';d.id='error';d.textContent=b;out.appendChild(d);return;}\n"
    "  var ct=r.headers.get('Content-Type')||'';\n"
    "  if(fmt==='table'&&ct.indexOf('json')>=0){st.textContent=draw(JSON.parse(b))+' ('+ms+')';return;}\n"
    "  var pre=document.createElement('pre');pre.textContent=b;out.appendChild(pre);\n"
    "  st.textContent=ct+' ('+ms+')';})\n"
    " .catch(function(x){st.textContent='request failed: '+x;});});\n"
    "</script></body></html>\n";

enum MHD_Result hs_page_reply(hs_req_t *r)
{
  return hs_reply(r, MHD_HTTP_OK, "text/html; charset=utf-8", hs_page_html,
                  sizeof hs_page_html - 1);
}
