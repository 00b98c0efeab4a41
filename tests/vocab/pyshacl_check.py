"""SHACL validation by pySHACL (conformance/upstream/pyshacl, vendored unchanged; Debian's
python3-rdflib and python3-packaging): validates every N-Triples file of a folder against the
published shapes and prints one JSON object, file name -> {conforms, targeted, results}.

Usage: pyshacl_check.py SHAPES_TTL DATA_DIR
Exit 3 naming the Debian package when a dependency is missing (the Deno test fails with it)."""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "conformance", "upstream", "pyshacl"))
try:
    import rdflib
except ImportError:
    print("MISSING python3-rdflib (Debian package python3-rdflib)", file=sys.stderr)
    sys.exit(3)
try:
    import packaging.version  # noqa: F401  (pyshacl needs it)
except ImportError:
    print("MISSING python3-packaging (Debian package python3-packaging)", file=sys.stderr)
    sys.exit(3)
try:
    import pyshacl
except ImportError as e:
    print(f"MISSING pyshacl (conformance/upstream/pyshacl): {e}", file=sys.stderr)
    sys.exit(3)

SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
shapes_path, data_dir = sys.argv[1:3]
shapes = rdflib.Graph().parse(shapes_path, format="turtle")
target_classes = set(shapes.objects(None, SH.targetClass))
out = {"pyshacl": pyshacl.__version__, "rdflib": rdflib.__version__, "docs": {}}
for fn in sorted(os.listdir(data_dir)):
    if not fn.endswith(".nt"):
        continue
    # SHACL's sh:pattern matches a literal's lexical form (SHACL §4.4.1, "str(value)"); rdflib by
    # default rewrites typed literals when parsing ("…Z" becomes "…+00:00"). pySHACL turns that off
    # while it validates and back on after, so it is turned off again before each parse.
    rdflib.NORMALIZE_LITERALS = False
    data = rdflib.Graph().parse(os.path.join(data_dir, fn), format="nt")
    conforms, report, _ = pyshacl.validate(
        data, shacl_graph=shapes, inference="none", abort_on_first=False, meta_shacl=False,
        advanced=False, debug=False)
    results = []
    for r in report.subjects(rdflib.RDF.type, SH.ValidationResult):
        path = report.value(r, SH.resultPath)
        results.append({
            "path": str(path) if isinstance(path, rdflib.URIRef) else None,
            "component": str(report.value(r, SH.sourceConstraintComponent)),
        })
    targeted = any(o in target_classes for o in data.objects(None, rdflib.RDF.type))
    out["docs"][fn[:-3]] = {"conforms": bool(conforms), "targeted": targeted, "results": results}
print(json.dumps(out))
