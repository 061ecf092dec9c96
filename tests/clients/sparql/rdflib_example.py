"""The five composers with the most works in the demo graph, through
Cadenza's SPARQL endpoint with rdflib's SPARQLStore."""
import sys

from rdflib.plugins.stores.sparqlstore import SPARQLStore

endpoint = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8890/sparql"
store = SPARQLStore(endpoint, returnFormat="json")
query = """
PREFIX schema: <http://schema.org/>
SELECT ?composer (COUNT(?work) AS ?works) WHERE {
  ?c schema:name ?composer . ?work schema:composer ?c
} GROUP BY ?composer ORDER BY DESC(?works) ?composer LIMIT 5
"""
for row in store.query(query):
    print("%s\t%s" % (row.composer, row.works))
