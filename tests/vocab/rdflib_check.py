"""Independent cross-check with Python's rdflib (Debian python3-rdflib): parses the ontology, the
shapes and an N-Quads export of the log, and sums joules_uj per tier and per provenance with
rdflib's own SPARQL engine. Prints one JSON object. Usage: rdflib_check.py V1_TTL SHAPES_TTL EXPORT_NQ"""
import json
import sys

try:
    import rdflib
except ImportError:  # the Deno test turns this into a failure naming the package
    print("MISSING python3-rdflib (Debian package python3-rdflib)", file=sys.stderr)
    sys.exit(3)

ttl, shapes, export = sys.argv[1:4]
onto = rdflib.Graph().parse(ttl, format="turtle")
sh = rdflib.Graph().parse(shapes, format="turtle")
ds = rdflib.Dataset()
ds.parse(export, format="nquads")
graphs = {str(g.identifier) for g in ds.graphs() if len(g)}

Q = """PREFIX jc: <https://jouleclaw.transaction.science/vocab/v1#>
SELECT ?k (SUM(?j) AS ?total) WHERE { GRAPH ?g { ?r a jc:Receipt ; jc:%s ?k ; jc:joulesUj ?j } } GROUP BY ?k"""


def sums(prop):
    return {str(row[0]): str(int(row[1])) for row in ds.query(Q % prop)}


indexes = sorted(int(q[2]) for q in ds.quads((None, rdflib.URIRef("https://jouleclaw.transaction.science/vocab/v1#logIndex"), None, None)))
print(json.dumps({
    "ontology_triples": len(onto),
    "ontology_classes": len(set(onto.subjects(rdflib.RDF.type, rdflib.OWL.Class))),
    "shapes_triples": len(sh),
    "node_shapes": len(set(sh.subjects(rdflib.RDF.type, rdflib.URIRef("http://www.w3.org/ns/shacl#NodeShape")))),
    "graphs": len(graphs),
    "log_indexes": indexes,
    "by_tier": sums("tier"),
    "by_provenance": sums("energyProvenance"),
}))
