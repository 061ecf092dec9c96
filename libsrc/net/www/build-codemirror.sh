#!/bin/sh
# build-codemirror.sh [SCRATCH] — rebuilds codemirror.min.js and
# codemirror.min.css (and copies the licence) from CodeMirror 5 as
# published with npm, in a scratch folder outside the repository; the
# results are committed here, so neither the build nor the server needs
# npm or the network. Run it only to move to another CodeMirror version
# (change CM_VERSION), then commit the three files.
set -e
CM_VERSION=5.65.21
here=$(cd "$(dirname "$0")" && pwd)
scratch=${1:-$(mktemp -d)}
mkdir -p "$scratch"
cd "$scratch"
[ -f package.json ] || npm init -y >/dev/null
npm install --no-audit --no-fund "codemirror@$CM_VERSION" terser@5 >/dev/null
cm=node_modules/codemirror
# the editor, the two modes, completion (generic and SQL's) and bracket matching
cat $cm/lib/codemirror.js $cm/mode/sparql/sparql.js $cm/mode/sql/sql.js \
    $cm/addon/hint/show-hint.js $cm/addon/hint/sql-hint.js $cm/addon/edit/matchbrackets.js > cm.js
node_modules/.bin/terser cm.js -c -m --comments '/^!/' \
  --preamble "/*! CodeMirror $CM_VERSION (lib, mode/sparql, mode/sql, addon/hint/show-hint, addon/hint/sql-hint, addon/edit/matchbrackets) | MIT License, see codemirror-LICENSE.txt */" \
  -o "$here/codemirror.min.js"
# comments dropped, blank runs squeezed
cat $cm/lib/codemirror.css $cm/addon/hint/show-hint.css |
  sed -e 's#/\*[^*]*\*\+\([^/*][^*]*\*\+\)*/##g' | tr -s ' \n' > "$here/codemirror.min.css"
cp $cm/LICENSE "$here/codemirror-LICENSE.txt"
echo "rebuilt in $here from $scratch"
