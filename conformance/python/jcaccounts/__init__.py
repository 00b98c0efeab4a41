"""jcaccounts: a replay of JCP §8.1's reading rules over logged jcp/2 receipts, written from the
specification's text and independently of the TypeScript code (issue 30; docs/ACCOUNTING.md).

`build.py` makes signed streams covering each case of §8.1 (with jcstreams' encoder and signer),
`cbor.py` decodes an envelope's core (its own decoder), `replay.py` reads the receipts in log
order and sums each (steward, grant) account over windows of integration time.
tests/e2e/accounts_python_test.ts drives it over real HTTP.
"""
