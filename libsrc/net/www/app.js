/* The query page (libsrc/net/README.md "The query page"): a CodeMirror
 * editor for SPARQL and SQL, results paged in the browser, the plan from
 * EXPLAIN ANALYZE beside them, a history in localStorage. Everything it
 * loads comes from this server; it talks to /sparql (SPARQL queries and
 * updates, streamed, SPARQL JSON) and /sql (SQL and plans, JSON, HTTP Basic
 * needed). Paging is on the client: the whole answer is fetched once (a
 * query that may be large should say LIMIT; /sql cuts at max_rows). */
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var PREFIXES = {
    rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
    rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
    xsd: 'http://www.w3.org/2001/XMLSchema#',
    owl: 'http://www.w3.org/2002/07/owl#',
    foaf: 'http://xmlns.com/foaf/0.1/',
    dc: 'http://purl.org/dc/elements/1.1/',
    dcterms: 'http://purl.org/dc/terms/',
    skos: 'http://www.w3.org/2004/02/skos/core#',
    schema: 'http://schema.org/',
    ex: 'http://example.org/'
  };
  var SPARQL_WORDS = ['SELECT', 'DISTINCT', 'WHERE', 'PREFIX', 'BASE', 'OPTIONAL', 'FILTER',
    'UNION', 'MINUS', 'GRAPH', 'BIND', 'VALUES', 'GROUP BY', 'HAVING', 'ORDER BY', 'LIMIT',
    'OFFSET', 'ASK', 'CONSTRUCT', 'DESCRIBE', 'INSERT DATA', 'DELETE DATA', 'COUNT', 'EXISTS',
    'NOT EXISTS', 'REGEX', 'STR', 'LANG', 'DATATYPE', 'COALESCE', 'IF'];
  var HISTORY_KEY = 'cadenza.history', HISTORY_MAX = 50;

  function lang() { return $('lang-sql').checked ? 'sql' : 'sparql'; }

  /* Prefix completion: the word before the cursor against the known
   * prefixes (and, in the query, the ones it declares) and the keywords;
   * picking a prefix not yet declared adds its PREFIX line on top. */
  function declared(text) {
    var m, re = /PREFIX\s+([A-Za-z][\w.-]*)?:\s*<([^>]*)>/gi, d = {};
    while ((m = re.exec(text))) d[m[1] || ''] = m[2];
    return d;
  }
  function sparqlHint(cm) {
    var cur = cm.getCursor(), line = cm.getLine(cur.line), start = cur.ch;
    while (start > 0 && /[\w:-]/.test(line.charAt(start - 1))) start--;
    var word = line.slice(start, cur.ch), lw = word.toLowerCase(), list = [];
    var decl = declared(cm.getValue()), all = {};
    Object.keys(PREFIXES).forEach(function (p) { all[p] = PREFIXES[p]; });
    Object.keys(decl).forEach(function (p) { all[p] = decl[p]; });
    Object.keys(all).sort().forEach(function (p) {
      if ((p + ':').indexOf(lw) !== 0) return;
      list.push({
        text: p + ':', displayText: p + ':  <' + all[p] + '>',
        hint: function (cm2, data, c) {
          cm2.replaceRange(c.text, data.from, data.to);
          if (!(p in declared(cm2.getValue())))
            cm2.replaceRange('PREFIX ' + p + ': <' + all[p] + '>\n', {line: 0, ch: 0});
        }
      });
    });
    if (word.indexOf(':') < 0)
      SPARQL_WORDS.forEach(function (k) {
        if (word && k.toLowerCase().indexOf(lw) === 0) list.push(k);
      });
    return {list: list, from: CodeMirror.Pos(cur.line, start), to: cur};
  }

  var editor = CodeMirror.fromTextArea($('query'), {
    mode: 'application/sparql-query', lineNumbers: true, matchBrackets: true,
    extraKeys: {
      'Ctrl-Space': function (cm) {
        cm.showHint({hint: lang() === 'sql' ? CodeMirror.hint.sql : sparqlHint,
          completeSingle: false});
      },
      'Ctrl-Enter': function () { run(); }
    }
  });
  window.cadenzaEditor = editor;  /* for tests and the console */

  function setLang() {
    editor.setOption('mode', lang() === 'sql' ? 'text/x-pgsql' : 'application/sparql-query');
  }
  $('lang-sparql').addEventListener('change', setLang);
  $('lang-sql').addEventListener('change', setLang);

  function authHeaders(h) {
    var u = $('user').value;
    if (u) h.Authorization = 'Basic ' + btoa(unescape(encodeURIComponent(u + ':' + $('password').value)));
    return h;
  }

  /* ---- results and paging ---- */
  var result = null, page = 0;   /* {cols: [..], rows: [[text|null..]..], note} */

  function term(t) {
    if (!t) return null;
    if (t.type === 'uri') return '<' + t.value + '>';
    if (t.type === 'bnode') return '_:' + t.value;
    var s = JSON.stringify(t.value);
    if (t['xml:lang']) return s + '@' + t['xml:lang'];
    if (t.datatype) return s + '^^<' + t.datatype + '>';
    return s;
  }
  function pageSize() { return parseInt($('pagesize').value, 10); }
  function draw() {
    var out = $('out'); out.textContent = '';
    if (!result) { $('pager').hidden = true; return; }
    var n = result.rows.length, ps = pageSize(), pages = Math.max(1, Math.ceil(n / ps));
    if (page >= pages) page = pages - 1;
    var tb = document.createElement('table'); tb.id = 'results';
    var h = tb.createTHead().insertRow();
    result.cols.forEach(function (c) { var th = document.createElement('th'); th.textContent = c; h.appendChild(th); });
    var body = tb.createTBody();
    result.rows.slice(page * ps, page * ps + ps).forEach(function (row) {
      var r = body.insertRow();
      row.forEach(function (v) {
        var td = r.insertCell();
        if (v === null) { td.className = 'null'; td.textContent = ''; } else td.textContent = v;
      });
    });
    out.appendChild(tb);
    $('pager').hidden = n <= ps;
    $('pageinfo').textContent = 'rows ' + (n ? page * ps + 1 : 0) + '–' + Math.min(n, page * ps + ps) +
      ' of ' + n + (result.note ? ' (' + result.note + ')' : '') + ', page ' + (page + 1) + ' of ' + pages;
    $('prev').disabled = page === 0;
    $('next').disabled = page >= pages - 1;
  }
  $('prev').addEventListener('click', function () { if (page > 0) { page--; draw(); } });
  $('next').addEventListener('click', function () { page++; draw(); });
  $('pagesize').addEventListener('change', function () { page = 0; draw(); });

  function showError(where, text) {
    var d = document.createElement('div'); d.className = 'error'; d.id = 'error';
    d.textContent = text; where.textContent = ''; where.appendChild(d);
  }
  function status(s) { $('status').textContent = s; }

  function post(url, body, headers) {
    return fetch(url, {method: 'POST', headers: authHeaders(headers), body: body,
      credentials: 'same-origin'}).then(function (r) {
      return r.text().then(function (t) { return {ok: r.ok, status: r.status, ct: r.headers.get('Content-Type') || '', body: t}; });
    });
  }
  function runSql(text, maxRows) {
    return post('/sql?max_rows=' + maxRows, text, {'Content-Type': 'application/sql'});
  }

  function run() {
    var text = editor.getValue(), t0 = performance.now(), l = lang();
    addHistory(l, text);
    status('running…'); $('out').textContent = ''; result = null; page = 0; draw();
    var isUpdate = l === 'sparql' && /^\s*(PREFIX\s+\S*\s*<[^>]*>\s*|BASE\s*<[^>]*>\s*)*(INSERT|DELETE|LOAD|CLEAR|CREATE|DROP|COPY|MOVE|ADD|WITH)\b/i.test(text);
    var req = l === 'sql' ? runSql(text, 10000)
      : post('/sparql', (isUpdate ? 'update=' : 'query=') + encodeURIComponent(text),
        {'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/sparql-results+json, text/turtle;q=0.5'});
    req.then(function (r) {
      var ms = Math.round(performance.now() - t0) + ' ms';
      if (!r.ok) { status('HTTP ' + r.status + ' (' + ms + ')'); showError($('out'), r.body); return; }
      if (r.ct.indexOf('json') < 0) {
        status(r.ct + ' (' + ms + ')');
        var pre = document.createElement('pre'); pre.id = 'text-result'; pre.textContent = r.body; $('out').appendChild(pre); return;
      }
      var j = JSON.parse(r.body);
      if (l === 'sql') {
        if (!j.columns.length) { status(j.tag + ' (' + ms + ')'); return; }
        result = {cols: j.columns.map(function (c) { return c.name; }), rows: j.rows,
          note: j.truncated ? 'cut at 10000 rows' : ''};
      } else if ('boolean' in j) {
        result = {cols: ['ASK'], rows: [[String(j.boolean)]]};
      } else {
        result = {cols: j.head.vars.map(function (v) { return '?' + v; }),
          rows: j.results.bindings.map(function (b) { return j.head.vars.map(function (v) { return term(b[v]); }); })};
      }
      status(result.rows.length + ' rows (' + ms + ')');
      draw();
    }).catch(function (x) { status('request failed: ' + x); });
  }

  /* The plan: EXPLAIN ANALYZE of the query (SQL, or SPARQL through the
   * SQL statement SPARQL …), one operator a line with its rows and time
   * marked. */
  function explain() {
    var text = editor.getValue().replace(/;\s*$/, ''), pane = $('plan-pane'), plan = $('plan');
    pane.hidden = false; plan.textContent = 'running…';
    runSql('EXPLAIN ANALYZE ' + (lang() === 'sparql' ? 'SPARQL ' : '') + text, 10000).then(function (r) {
      if (!r.ok) { showError(plan, r.body); return; }
      var j = JSON.parse(r.body); plan.textContent = '';
      j.rows.forEach(function (row) {
        var div = document.createElement('div'), s = row[0] || '', re = /(rows=\d+|actual[^)]*\)|time=[\d.]+(?:\.\.[\d.]+)?(?: ms)?|[\d.]+ ms)/g, last = 0, m;
        div.className = 'op';
        while ((m = re.exec(s))) {
          div.appendChild(document.createTextNode(s.slice(last, m.index)));
          var sp = document.createElement('span'); sp.className = /rows/.test(m[0]) ? 'rows' : 'time';
          sp.textContent = m[0]; div.appendChild(sp); last = m.index + m[0].length;
        }
        div.appendChild(document.createTextNode(s.slice(last)));
        plan.appendChild(div);
      });
    }).catch(function (x) { showError(plan, 'request failed: ' + x); });
  }

  /* ---- history (localStorage, newest first, no duplicates) ---- */
  function loadHistory() {
    try { return JSON.parse(localStorage.getItem(HISTORY_KEY)) || []; } catch (e) { return []; }
  }
  function addHistory(l, text) {
    var h = loadHistory().filter(function (e) { return e.text !== text || e.lang !== l; });
    h.unshift({lang: l, text: text, at: new Date().toISOString()});
    try { localStorage.setItem(HISTORY_KEY, JSON.stringify(h.slice(0, HISTORY_MAX))); } catch (e) { /* full or off */ }
    drawHistory();
  }
  function drawHistory() {
    var ol = $('history'); ol.textContent = '';
    loadHistory().forEach(function (e) {
      var li = document.createElement('li');
      li.textContent = '[' + e.lang + '] ' + e.text.replace(/\s+/g, ' ');
      li.title = e.at;
      li.addEventListener('click', function () {
        $(e.lang === 'sql' ? 'lang-sql' : 'lang-sparql').checked = true; setLang(); editor.setValue(e.text);
      });
      ol.appendChild(li);
    });
  }
  $('clear-history').addEventListener('click', function () { localStorage.removeItem(HISTORY_KEY); drawHistory(); });

  $('run').addEventListener('click', run);
  $('explain').addEventListener('click', explain);
  drawHistory();
  draw();
})();
