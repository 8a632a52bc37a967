"""The stand-in of hyper-parallel's package layout that the drop-in checks
(hyper_parallel_check.py, hyper_parallel_fast_check.py) install() into."""

import os

# Upstream's merger, raising if it is the one that runs.
MERGER = "def merge_chrome_traces(*a, **k):\n    raise RuntimeError('upstream merge ran')\n"


def upstream_site(tmp, files):
    """Write files (a path under hyper_parallel/core/multicore/ -> its text)
    under tmp/site, with an __init__.py in every package folder that has
    none, and return tmp/site for sys.path."""
    root = os.path.join(tmp, "site")
    base = os.path.join(root, "hyper_parallel", "core", "multicore")
    for rel, text in files.items():
        path = os.path.join(base, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    for d, _, names in os.walk(os.path.join(root, "hyper_parallel")):
        if "__init__.py" not in names:
            open(os.path.join(d, "__init__.py"), "w").close()
    return root
