"""The operator configuration the vectors are verified under (operator-config.json)."""

import json
import os

from . import didkey


class Config:
    def __init__(self, doc):
        self.gateway_keys = {k: bytes.fromhex(v) for k, v in doc.get("gateway_keys", {}).items()}
        # kid -> (alg, key): 32 bytes Ed25519 (-8); 33/65 bytes a P-256 point (-7); or a did:key
        self.keys = {kid: (didkey.typed_key(v) if v.startswith("did:key:")
                           else (-8 if len(bytes.fromhex(v)) == 32 else -7, bytes.fromhex(v)))
                     for kid, v in doc.get("keys", {}).items()}
        self.reference_vectors = {h: int(v["joules_uj"]) for h, v in doc.get("reference_vectors", {}).items()}
        pol = doc.get("policies", [])
        self.policies = list(pol.values()) if isinstance(pol, dict) else list(pol)
        # identity -> its current key, from a log's key events (--key-events; docs/KEYS.md)
        self.identities = {}

    @staticmethod
    def load(directory):
        path = os.path.join(directory, "operator-config.json")
        if not os.path.exists(path):
            return Config({})
        with open(path, encoding="utf-8") as f:
            return Config(json.load(f))
