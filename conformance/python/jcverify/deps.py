"""The four system dependencies, each named by its Debian package when missing."""

import shutil


class MissingDependency(Exception):
    """A required system package is not installed."""


def check():
    """Raise MissingDependency naming the Debian package of the first missing dependency."""
    try:
        import cbor2  # noqa: F401
    except ImportError as e:
        raise MissingDependency("Cannot run jcverify: python module cbor2 is missing (install Debian package python3-cbor2)") from e
    try:
        import nacl.signing  # noqa: F401
    except ImportError as e:
        raise MissingDependency("Cannot run jcverify: python module nacl is missing (install Debian package python3-nacl)") from e
    try:
        import cryptography.hazmat.primitives.asymmetric.ec  # noqa: F401
    except ImportError as e:
        raise MissingDependency("Cannot run jcverify: python module cryptography is missing (install Debian package python3-cryptography)") from e
    if shutil.which("b3sum") is None:
        raise MissingDependency("Cannot run jcverify: the b3sum command is missing (install Debian package b3sum)")
