"""Following other writers live: each open corpus's edit journal is watched, and what
another window or annotator appends is replayed at once (``AnnotationSession.refresh``),
said with who did it, and any conflict it makes is shown, not silently ordered."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QFileSystemWatcher, QObject

from sentspace.app.session import CorpusState, Session

#: Records named one by one in the status bar; more are counted.
NAMED = 3


class Following(QObject):
    """Watches the journals of ``session``'s corpora; ``say(text)`` tells the user (the
    status bar) what others did."""

    def __init__(self, session: Session, say: Callable[[str], None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.session, self.say = session, say
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self.journal_changed)
        session.corpus_opened.connect(self._watch)
        session.corpus_closed.connect(lambda _: self._rewatch())

    def _journal(self, state: CorpusState) -> str | None:
        return str(state.annotations.journal.path) if state.annotations is not None else None

    def _watch(self, state: CorpusState) -> None:
        path = self._journal(state)
        if path is not None and path not in self.watcher.files():
            self.watcher.addPath(path)

    def _rewatch(self) -> None:
        """Watch exactly the journals of the corpora still open."""
        wanted = {self._journal(state) for state in self.session.states.values()} - {None}
        gone = [path for path in self.watcher.files() if path not in wanted]
        if gone:
            self.watcher.removePaths(gone)
        for state in self.session.states.values():
            self._watch(state)

    def journal_changed(self, path: str) -> None:
        """Replay what others appended to the journal at ``path`` (our own appends
        change it too: those replay nothing)."""
        for spec, state in list(self.session.states.items()):
            if self._journal(state) != path:
                continue
            changes = state.annotations.refresh()
            if changes:
                self.session.corpus_edited(spec)
                self.say(self.describe(state, changes))
        # A file replaced rather than appended to drops out of the watch: take it back.
        self._rewatch()

    @staticmethod
    def describe(state: CorpusState, changes) -> str:
        """What others did, in one status line: who, the first edits, any conflict."""
        named = [f"{record.author}: {getattr(record, 'describe', lambda: record.op)()}"
                 for record in changes.records[:NAMED]]
        more = len(changes.records) - NAMED
        line = (f"{state.corpus.name}: " + "; ".join(named)
                + (f" and {more} more" if more > 0 else ""))
        if changes.conflicts:
            line += (f" · {len(changes.conflicts)} conflict"
                     f"{'s' if len(changes.conflicts) > 1 else ''} (see Review)")
        return line
