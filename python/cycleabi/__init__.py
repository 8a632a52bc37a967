"""cycleabi for Python: the ABI module and the programs of the wheel.

    pip install cycleabi-<version>-py3-none-manylinux_....whl

    import cycleabi
    recs = cycleabi.read_capture("rank0.bin").records()   # NumPy, as in gen/py
    names = [cycleabi.desc_name(d) for d in recs["desc_id"]]
    report = cycleabi.analyze("rank0.bin", plan="moe.yaml")  # analyze --format json, as a dict
    cycleabi.run("decode", "rank0.bin", "-o", "trace.json")  # any command

Everything the generated module cycleabi_abi (gen/py/cycleabi_abi.py in the
repository, installed beside this package) defines is here too:
read_capture, the constants, enums and dtypes, NAMESPACES, desc_name,
FAMILIES, family, ... . analyze and run call the cycleabi program the wheel
installed into the interpreter's scripts directory (program() says which).
This file is written by hand; the module it imports is generated.
"""

import json
import os
import shutil
import subprocess
import sysconfig
import types

import cycleabi_abi as abi

__all__ = sorted(
    [k for k, v in vars(abi).items() if not k.startswith("_") and not isinstance(v, types.ModuleType)]
    + ["abi", "analyze", "program", "run", "CommandError", "__version__"])
# __version__ is the generated module's: the version of cycleabi that
# generated it (the repository's VERSION, in PEP 440 form), which is the
# wheel's version and what `cycleabi --version` prints, installed or not.
globals().update({k: getattr(abi, k) for k in __all__ if hasattr(abi, k)})


class CommandError(subprocess.CalledProcessError):
    """A cycleabi command that exited non-zero: returncode is its exit status
    (1 bad input, 2 usage or I/O), stderr its message."""

    def __str__(self):
        msg = (self.stderr or "").strip()
        return "%s exited with status %d%s" % (
            " ".join(self.cmd), self.returncode, (": " + msg) if msg else "")


def _script_dirs():
    """The interpreter's scripts directories: where pip put the wheel's
    programs (the environment's, then the user scheme's for pip --user)."""
    dirs = [sysconfig.get_path("scripts")]
    scheme = getattr(sysconfig, "get_preferred_scheme", None)
    user = scheme("user") if scheme else (os.name + "_user")
    try:
        dirs.append(sysconfig.get_path("scripts", user))
    except KeyError:
        pass
    return [d for d in dirs if d]


def program(name="cycleabi"):
    """The path of the program name ("cycleabi"): the
    one in the interpreter's scripts directory, where the wheel installs
    it, else the first on PATH. Raises FileNotFoundError without one."""
    for d in _script_dirs():
        path = os.path.join(d, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    path = shutil.which(name)
    if path:
        return path
    raise FileNotFoundError(
        "%s is neither in %s nor on PATH: pip install the cycleabi wheel, or put a build on PATH"
        % (name, " or ".join(_script_dirs())))


def run(*args, check=True, capture_output=False, text=True, **kwargs):
    """Run the cycleabi program with args (run("validate", "rank0.bin")) and
    return its subprocess.CompletedProcess. With check (the default) a
    non-zero exit raises CommandError; with capture_output its standard
    output and error are returned (as str with text) instead of shown.
    Other keyword arguments go to subprocess.run (cwd, env, timeout, ...)."""
    cmd = [program()] + [os.fspath(a) for a in args]
    proc = subprocess.run(cmd, capture_output=capture_output, text=text, **kwargs)
    if check and proc.returncode != 0:
        raise CommandError(proc.returncode, cmd, proc.stdout, proc.stderr)
    return proc


def _flags(options):
    """analyze's flags from keyword arguments: plan="moe.yaml" is --plan
    moe.yaml, kernel_family="MegaMoe" --kernel-family MegaMoe, a list or
    tuple repeats the flag (rank=[0, 1]), True gives the flag alone, None
    and False leave it out."""
    out = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                out += [flag, os.fspath(v) if hasattr(v, "__fspath__") else str(v)]
        else:
            out += [flag, os.fspath(value) if hasattr(value, "__fspath__") else str(value)]
    return out


def analyze(*paths, **options):
    """`cycleabi analyze PATH... --format json` as a dict: the same figures
    the command line prints, for captures or JSON traces (a decode output or
    hyper-parallel's profiler export). Keyword arguments are analyze's flags
    (plan=, names=, rank=[...], kernel_family=, freq_mhz=, ...; see
    `cycleabi analyze --help`). Raises CommandError, with analyze's message,
    when analyze refuses the input.

    The paths come after "--", so a path that starts with "-" is read as a
    path, never as a flag; --format json and -o - come after every flag
    the keyword arguments give, so none of them overrides them."""
    if "format" in options or "output" in options or "o" in options:
        raise TypeError("analyze always reads --format json from standard output")
    proc = run("analyze", *_flags(options), "--format", "json", "-o", "-", "--", *paths, capture_output=True)
    return json.loads(proc.stdout)
