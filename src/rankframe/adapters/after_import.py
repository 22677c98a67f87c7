"""Code that runs once a module has been imported, whoever imports it and whenever: at once if
it is imported already, else as soon as its import finishes (an import hook, one finder at the
front of ``sys.meta_path``). ``import rankframe`` puts the accessor on the frame libraries'
classes this way without importing them (``rankframe.adapters.accessors``).

This module imports nothing but the standard library. What it runs must not import
rankframe's own modules: the import it follows may have been started by one of them, still
half done.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from importlib.abc import Loader
    from importlib.machinery import ModuleSpec

__all__ = ["when_imported"]

#: the code waiting for each module's import, run once (popped under the lock)
_WAITING: dict[str, list[Callable[[], None]]] = {}
_LOCK = threading.Lock()


def when_imported(module: str, then: Callable[[], None]) -> None:
    """Run ``then()`` once ``module`` is imported: now if it is (after waiting for an import
    under way in another thread), else right after its import finishes (nothing if it
    never is). Each ``then`` runs once."""
    _install()
    with _LOCK:
        _WAITING.setdefault(module, []).append(then)
    # looked up once `then` waits: an import that starts in between finds it and runs it (one
    # that had already passed the finder then, a window of its search for the module's
    # file, is not followed)
    if sys.modules.get(module) is not None:
        importlib.import_module(module)  # waits for another thread's import under way
        _run(module)


def _run(module: str) -> None:
    with _LOCK:
        waiting = _WAITING.pop(module, [])
    for then in waiting:
        then()


def _install() -> None:
    with _LOCK:
        if not any(isinstance(finder, _AfterImport) for finder in sys.meta_path):
            sys.meta_path.insert(0, _AfterImport())


class _AfterImport:
    """The finder (the protocol of ``importlib.abc.MetaPathFinder``, not its subclass:
    ``importlib.abc`` takes 10 ms to import) of the modules some code waits for: it asks the
    other finders for the module's spec and wraps its loader, so that the waiting code runs
    when the module has executed. It stays on ``sys.meta_path`` (removing it while another
    thread's import reads the list would make that import skip a finder); for every other
    module it answers at once that it does not find it."""

    def find_spec(
        self,
        name: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        if name not in _WAITING:
            return None
        for finder in list(sys.meta_path):  # a copy: other threads may change the list
            find = getattr(finder, "find_spec", None)  # None: a finder of before Python 3.4
            if finder is self or find is None:
                continue
            spec: ModuleSpec | None = find(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = cast("Loader", _Then(spec.loader, name))  # its protocol
                return spec
        return None


class _Then:
    """A module's own loader (the protocol of ``importlib.abc.Loader``), which runs the code
    waiting for the module once the module has executed (and only if it executed without an
    error)."""

    def __init__(self, loader: Loader, name: str) -> None:
        self.loader = loader
        self.name = name

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        # the module holds its own loader, as if imported without the hook
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        _run(self.name)

    def __getattr__(self, name: str) -> Any:  # the real loader's other methods
        return getattr(self.loader, name)
