curl -G http://127.0.0.1:8890/sparql -H 'Accept: text/csv' --data-urlencode 'query=
  PREFIX schema: <http://schema.org/>
  SELECT ?composer (COUNT(?work) AS ?works) WHERE {
    ?c schema:name ?composer . ?work schema:composer ?c
  } GROUP BY ?composer ORDER BY DESC(?works) ?composer LIMIT 5'
