package example;

import org.apache.jena.rdfconnection.RDFConnection;

/** The five composers with the most works in the demo graph, through
 *  Cadenza's SPARQL endpoint with Apache Jena's RDFConnection. */
public class JenaExample {
    public static void main(String[] args) {
        String endpoint = args.length > 0 ? args[0] : "http://127.0.0.1:8890/sparql";
        String query = String.join("\n",
            "PREFIX schema: <http://schema.org/>",
            "SELECT ?composer (COUNT(?work) AS ?works) WHERE {",
            "  ?c schema:name ?composer . ?work schema:composer ?c",
            "} GROUP BY ?composer ORDER BY DESC(?works) ?composer LIMIT 5");
        try (RDFConnection conn = RDFConnection.connect(endpoint)) {
            conn.querySelect(query, row -> System.out.println(
                row.getLiteral("composer").getString() + "\t" + row.getLiteral("works").getInt()));
        }
    }
}
