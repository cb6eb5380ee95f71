"""Following other writers live: each open corpus's edit journal is watched, and what
another window or annotator appends is replayed at once (``AnnotationSession.refresh``),
said with who did it, and any conflict it makes is shown, not silently ordered.

A journal whose file or folder goes away (a network drive) drops out of the watch;
a slow timer looks for it every :data:`POLL_MS` (a ``stat`` per open journal), says once
that it is gone, and when it is back watches it again, replays what others appended
meanwhile and says how many edits wait to be saved (Review's *Retry saving*)."""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer

from sentspace.app.annotations.edits import EditError
from sentspace.app.state.session import CorpusState, Session

#: Records named one by one in the status bar; more are counted.
NAMED = 3
#: How often (ms) the journals' paths are checked: gone, back, or another file.
POLL_MS = 2000


class Following(QObject):
    """Watches the journals of ``session``'s corpora; ``say(text)`` tells the user (the
    status bar) what others did."""

    def __init__(
        self, session: Session, say: Callable[[str], None], parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.session, self.say = session, say
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self.journal_changed)
        #: Each watched journal's (device, inode) when last seen; None while it is gone.
        self.seen: dict[str, tuple[int, int] | None] = {}
        #: Journals whose last refresh failed (said once, until one succeeds).
        self.failing: set[str] = set()
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.check_paths)
        session.corpus_opened.connect(self._watch)
        session.corpus_closed.connect(lambda _: self._rewatch())

    def _journal(self, state: CorpusState) -> str | None:
        return str(state.annotations.journal.path) if state.annotations is not None else None

    def _watch(self, state: CorpusState) -> None:
        path = self._journal(state)
        if path is None:
            return
        if path not in self.seen:
            self.seen[path] = _identity(path)
        # A path that is not there cannot be watched (Qt warns): the timer looks for it.
        if path not in self.watcher.files() and self.seen[path] is not None:
            self.watcher.addPath(path)
        if not self.timer.isActive():
            self.timer.start()

    def _rewatch(self) -> None:
        """Watch exactly the journals of the corpora still open."""
        wanted = {self._journal(state) for state in self.session.states.values()} - {None}
        gone = [path for path in self.watcher.files() if path not in wanted]
        if gone:
            self.watcher.removePaths(gone)
        for path in set(self.seen) - wanted:
            del self.seen[path]
        self.failing &= wanted
        for state in self.session.states.values():
            self._watch(state)
        if not self.seen:
            self.timer.stop()

    def journal_changed(self, path: str) -> None:
        """Replay what others appended to the journal at ``path`` (our own appends
        change it too: those replay nothing). A journal that cannot be read now (its
        folder gone) is said, once, not raised."""
        for spec, state in list(self.session.states.items()):
            if self._journal(state) != path:
                continue
            try:
                changes = state.annotations.refresh()
            except EditError as error:
                if path not in self.failing:
                    self.say(
                        f"{state.corpus.name}: the edit journal cannot be read "
                        f"({error.problem}); edits made now are kept until it is back"
                    )
                self.failing.add(path)
                self.seen[path] = _identity(path)
                continue
            self.failing.discard(path)
            self.seen[path] = _identity(path)  # replaced: the file read now
            if changes:
                self.session.corpus_edited(spec)
                self.say(self.describe(state, changes))
        # A file replaced rather than appended to drops out of the watch: take it back.
        self._rewatch()

    def check_paths(self) -> None:
        """Every :data:`POLL_MS`: a journal gone is said once and not watched; one back
        (or back as another file) is watched again and replayed, and its edits not saved
        are said."""
        for path, before in list(self.seen.items()):
            now = _identity(path)
            if now == before:
                continue
            self.seen[path] = now
            states = [
                (spec, state)
                for spec, state in self.session.states.items()
                if self._journal(state) == path
            ]
            if now is None:
                if path in self.watcher.files():
                    self.watcher.removePath(path)
                for _, state in states:
                    self.say(
                        f"{state.corpus.name}: the edit journal is gone ({path}); "
                        "edits made now are kept until it is back"
                    )
                continue
            if path in self.watcher.files():
                self.watcher.removePath(path)  # another file now: watch that one
            self.watcher.addPath(path)
            self.journal_changed(path)
            if path in self.failing:
                continue
            for spec, state in states:
                pending = len(state.annotations.pending)
                self.session.corpus_edited(spec)
                self.say(
                    f"{state.corpus.name}: the edit journal is back"
                    + (
                        f"; {pending} edit{'s' if pending > 1 else ''} not saved: "
                        "Retry saving in Review"
                        if pending
                        else ""
                    )
                )

    @staticmethod
    def describe(state: CorpusState, changes) -> str:
        """What others did, in one status line: who, the first edits, any conflict."""
        named = [
            f"{record.author}: {record.describe() if hasattr(record, 'describe') else record.op}"
            for record in changes.records[:NAMED]
        ]
        more = len(changes.records) - NAMED
        line = (
            f"{state.corpus.name}: " + "; ".join(named) + (f" and {more} more" if more > 0 else "")
        )
        if changes.conflicts:
            line += (
                f" · {len(changes.conflicts)} conflict"
                f"{'s' if len(changes.conflicts) > 1 else ''} (see Review)"
            )
        return line


def _identity(path: str) -> tuple[int, int] | None:
    """The file at ``path`` as (device, inode); None when it is not there (or cannot
    be reached)."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_dev, status.st_ino
