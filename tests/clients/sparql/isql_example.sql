SPARQL PREFIX schema: <http://schema.org/>
SELECT ?composer (COUNT(?work) AS ?works) WHERE {
  ?c schema:name ?composer . ?work schema:composer ?c
} GROUP BY ?composer ORDER BY DESC(?works) ?composer LIMIT 5;
