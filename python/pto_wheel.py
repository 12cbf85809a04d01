"""A PEP 517 build backend for the pypto package that needs nothing beyond
the standard library, so that `pip install ./python` works offline (pip's
isolated build environment then has nothing to download)."""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

NAME = "pypto"
_HERE = os.path.dirname(os.path.abspath(__file__))


def _version():
    with open(os.path.join(_HERE, NAME, "__init__.py"), encoding="utf-8") as f:
        return re.search(r'^__version__ = "([^"]+)"', f.read(), re.M).group(1)


def _metadata(version):
    return ("Metadata-Version: 2.1\n"
            f"Name: {NAME}\nVersion: {version}\n"
            "Summary: Python front end of PTO, a tile-based kernel compiler\n"
            "Requires-Python: >=3.9\nRequires-Dist: numpy\n")


def _sources():
    """The package's files, relative to python/, in a stable order."""
    out = []
    for root, dirs, files in os.walk(os.path.join(_HERE, NAME)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            if f.endswith(".py"):
                out.append(os.path.relpath(os.path.join(root, f), _HERE))
    return out


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"{arcname},sha256={digest.decode()},{len(data)}\n"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    info = f"{NAME}-{version}.dist-info"
    wheel_name = f"{NAME}-{version}-py3-none-any.whl"
    files = []
    for rel in _sources():
        with open(os.path.join(_HERE, rel), "rb") as f:
            files.append((rel.replace(os.sep, "/"), f.read()))
    files.append((f"{info}/METADATA", _metadata(version).encode()))
    files.append((f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: pto_wheel\n"
                  b"Root-Is-Purelib: true\nTag: py3-none-any\n"))
    record = "".join(_record_line(a, d) for a, d in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w",
                         zipfile.ZIP_DEFLATED) as z:
        for arcname, data in files:
            z.writestr(zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    version = _version()
    base = f"{NAME}-{version}"
    with tarfile.open(os.path.join(sdist_directory, base + ".tar.gz"), "w:gz") as t:
        for rel in _sources() + ["pyproject.toml", "pto_wheel.py"]:
            t.add(os.path.join(_HERE, rel), arcname=f"{base}/{rel}")
        pkg_info = _metadata(version).encode()
        ti = tarfile.TarInfo(f"{base}/PKG-INFO")
        ti.size = len(pkg_info)
        t.addfile(ti, io.BytesIO(pkg_info))
    return base + ".tar.gz"
