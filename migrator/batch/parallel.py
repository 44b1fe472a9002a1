"""BATCH: run a batch on worker processes; results come back in discovery order.

This process reads every file and settles itself those that hold no Kubeflow document (the
cheap prefilter), so a run over ordinary manifests never loads the converter nor starts a
worker. At the first file that needs the converter it forks one process, the loader, which
loads the converter (and converts that file once, to warm its lazily built parts) while
this process goes on reading; the loader then forks the workers, which start warm: the
converter is loaded once per run, not once per worker. The workers get small batches of the
files to convert, by name (they read them again: no file text but standard input's crosses a
pipe), a few batches each so none waits for work. Every file keeps its place in the order
(its batch and index, or its settled result); results are handed on as soon as they are next
in order, and reading ahead stops at ``MAX_PENDING`` (slim: ``MAX_SLIM``) results held back
for order or ``AHEAD`` batches per worker not yet sent (not before the workers are there
when the results held are slim: this process reads on while the loader loads), so memory
does not grow with the size of the run. A worker that dies is replaced; the files it held
are redone one by one on a worker of their own, and a file that kills that one too is
reported (Y105) instead of ending the run.

A run ``direct`` (a warm run: the results cache holds most files, the few changed ones are
converted) forks its first worker itself at the first file to convert: it loads the
converter and converts the changed files while this process goes on matching the rest of
the tree against the cache, instead of after it. Only when work piles up (``AHEAD``
batches waiting) does it start the loader for the other workers, as a cold run does.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import os
import pickle  # here, not on the first send: the direct worker, forked then, has it too
import select
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from migrator.batch import files, helm
from migrator.load import sources
from migrator.results import (
    DocumentResult,
    FileResult,
    Finding,
    Severity,
    SourceText,
    TextResult,
    Unreadable,
)
from migrator.settings import ConvertOptions

if TYPE_CHECKING:
    import socket

    from migrator.batch.writer import Destination

BATCH = 4  # files per batch sent to a worker (those that need the converter)
HELD = 2  # batches sent to a worker and not answered yet: one in hand, one waiting
AHEAD = 8  # batches per worker made and not sent yet before this process stops reading
MAX_PENDING = 4096  # results held back for order (bounds memory: results with texts)
MAX_SLIM = 16384  # the same for slim results (a few hundred bytes each, no file text)
POLL_EVERY = 8  # files read between two looks at the workers' answers
LOADER_GRACE = 10.0  # seconds the loader has to end once its workers have
WARM_BYTES = 64 * 1024  # the loader converts the first file once only if it is this small


def run(found: Iterable[tuple[str, str]], options: ConvertOptions, jobs: int, render: bool,
        max_bytes: int, audit: bool, keep_text: bool = True,
        destination: Destination | None = None, review: bool = False,
        direct: bool = False) -> Iterator[FileResult]:
    """Results in the order of ``found``. Conversions are written to ``destination`` by the
    process that made them; without ``keep_text`` results come back without file texts
    (slim: the caller neither prints nor reviews them); with ``review`` converted jobs carry
    their effective-pod comparison, made by the worker that converted them. ``direct``: the
    first worker is forked by this process (see the module's docstring)."""
    task = _Task(options, render, max_bytes, audit, keep_text, destination, review)
    pending: deque[FileResult | _Slot] = deque()
    workers: _Workers | None = None
    batch: _Job | None = None  # filling (its files' places are in ``pending`` already)
    try:
        for count, (name, relative) in enumerate(found):
            done = None if name.startswith(helm.PREFIX) else \
                files.settled(name, relative, max_bytes)
            if isinstance(done, FileResult):
                pending.append(done if keep_text or workers is None else done.slim())
            else:
                if workers is None:
                    workers = _Workers(jobs, task, done, direct)
                if done is not None and name == sources.STDIN:  # only this process can read it
                    pending.append((workers.submit(
                        _Job((files.convert_or_audit, (done.text, options, render, audit,
                                                       review)), [(name, relative)], done)), 0))
                else:
                    if batch is None or batch.sent:
                        batch = _batch_job([], task)
                    pending.append((batch, len(batch.names)))
                    batch.names.append((name, relative))
                    if len(batch.names) >= BATCH or workers.idle():
                        workers.submit(batch)
            if workers is None:
                while pending:  # nothing is pending before the workers start
                    yield _settled(pending.popleft())
                continue
            if count % POLL_EVERY == 0 or (workers.waiting() >= AHEAD * jobs
                                           and workers.arrived()):
                workers.poll()
            yield from _hand_on(pending, workers, task)
        if workers is not None:
            workers.ended = True
            if batch is not None and not batch.sent:
                workers.submit(batch)
            while pending:
                yield from _results(pending.popleft(), task, workers)
    except BaseException as stopped:  # interrupted (Ctrl-C), an error, the caller is done
        if workers is not None and not isinstance(stopped, GeneratorExit):
            ending: _Workers = workers
            workers = None  # closed here, not again below
            ending.close(abort=True)
        raise
    finally:
        if workers is not None:
            workers.close()


def _settled(item: FileResult | _Slot) -> FileResult:
    assert isinstance(item, FileResult)
    return item


def _hand_on(pending: deque[FileResult | _Slot], workers: _Workers,
             task: _Task) -> Iterator[FileResult]:
    """Hand on the results that are next in order; stop reading ahead (wait for answers)
    while too many batches wait for a worker or too many results are held back for order.
    Until the first worker has arrived a run that holds slim results (no file texts) reads
    on, up to ``MAX_SLIM``: the loader is importing the converter on one CPU meanwhile,
    and every file read and settled now is one this process does not read later, while the
    workers want every CPU."""
    while True:
        while pending and _ready(pending[0]):
            yield from _results(pending.popleft(), task, workers)
        if len(pending) > (MAX_PENDING if task.keep_text else MAX_SLIM):
            yield from _results(pending.popleft(), task, workers)
            continue
        if workers.waiting() < AHEAD * workers.jobs or (not task.keep_text
                                                        and not workers.arrived()):
            return
        workers.poll(block=True)


class _Task:
    """What every batch of a run is asked to do (sent to the workers: it pickles)."""

    __slots__ = ("audit", "destination", "keep_text", "max_bytes", "options", "render", "review")

    def __init__(self, options: ConvertOptions, render: bool, max_bytes: int, audit: bool,
                 keep_text: bool, destination: Destination | None,
                 review: bool = False) -> None:
        self.options = options
        self.render = render
        self.max_bytes = max_bytes
        self.audit = audit
        self.keep_text = keep_text
        self.destination = destination
        self.review = review


class _Job:
    """Work for one worker: ``call`` (a function and its arguments) over ``names``; ``read``
    is the text of standard input when that is what it converts. (Plain classes, not
    dataclasses: this module is imported at the first file a warm run converts, before the
    worker that converts it is forked.)"""

    __slots__ = ("answered", "call", "error", "lost", "names", "read", "sent", "value")

    def __init__(self, call: tuple[Callable[..., Any], tuple[Any, ...]],
                 names: list[tuple[str, str]], read: SourceText | None = None) -> None:
        self.call = call
        self.names = names
        self.read = read
        self.sent = False  # handed to the workers (a batch fills until then)
        self.answered = False
        self.value: Any = None
        self.error: BaseException | None = None
        self.lost = False  # the worker holding it died


# a file's place in the order of results: its job and its index among the job's files
_Slot = tuple[_Job, int]


def _batch_job(names: list[tuple[str, str]], task: _Task) -> _Job:
    """A batch of the files ``names`` (still filling: the call reads the list when sent)."""
    return _Job((_process_batch, (names, task)), names)


def _ready(item: FileResult | _Slot) -> bool:
    return isinstance(item, FileResult) or item[0].answered or item[0].lost


def _results(item: FileResult | _Slot, task: _Task, workers: _Workers) -> Iterator[FileResult]:
    """The result of one file, in its turn: settled here, or the ``index``-th of a job."""
    if isinstance(item, FileResult):
        yield item
        return
    job, index = item
    while not (job.answered or job.lost):
        if not job.sent:  # a batch still filling: its turn has come
            workers.submit(job)
        workers.poll(block=True)
    if job.error is not None:
        raise job.error
    name, relative = job.names[index]
    if job.read is not None:  # standard input
        read = job.read
        result = job.value
        if job.lost:
            survived, result = workers.isolated(job.call[0], *job.call[1])
            if not survived:
                yield _crashed(read.name, read.relative, task, read)
                return
        yield files.store(FileResult(read.name, read.relative, source=read, result=result),
                          task.destination)
    elif job.lost:  # its worker died: this file alone, on a worker of its own
        survived, results = workers.isolated(_process_batch, [(name, relative)], task)
        yield results[0] if survived else _crashed(name, relative, task)
    else:
        yield job.value[index]


class _Channel:
    """Pickled values over a stream (a pair of pipes, or a stream socket both ways), each
    after its length (8 bytes): what ``multiprocessing.connection.Connection`` does for us,
    without importing multiprocessing (~12 ms, in the main process of every run that
    converts). A direct worker's channel is two pipes: a warm run that converts a few files
    does not import ``socket`` either (~2.5 ms before the worker is forked)."""

    def __init__(self, reading: int, writing: int | None = None) -> None:
        self.reading = reading
        self.writing: int | None = reading if writing is None else writing  # None: shut

    @classmethod
    def pipes(cls) -> tuple[_Channel, _Channel]:
        """Two ends of a new channel made of two pipes (inherited by no other program)."""
        theirs_reading, mine_writing = os.pipe()
        try:
            mine_reading, theirs_writing = os.pipe()
        except OSError:  # (too many open files): the first pipe is not left open
            os.close(theirs_reading)
            os.close(mine_writing)
            raise
        return cls(mine_reading, mine_writing), cls(theirs_reading, theirs_writing)

    def descriptors(self) -> list[int]:
        return sorted({self.reading, *([] if self.writing is None else [self.writing])})

    def fileno(self) -> int:
        return self.reading

    def send(self, value: Any) -> None:
        data = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)  # (nothing sent if this fails)
        if self.writing is None:
            raise BrokenPipeError("this end of the channel is shut")
        view = memoryview(len(data).to_bytes(8, "big") + data)
        while view:
            view = view[os.write(self.writing, view):]

    def recv(self) -> Any:
        """The next value; EOFError when the other end has closed (or died mid-value)."""
        return pickle.loads(self.recv_bytes())

    def recv_bytes(self) -> bytes:
        return self._exactly(int.from_bytes(self._exactly(8), "big"))

    def _exactly(self, size: int) -> bytes:
        data = bytearray(size)
        view = memoryview(data)
        got = 0
        while got < size:
            count = os.readv(self.reading, [view[got:got + (1 << 20)]])
            if not count:
                raise EOFError
            got += count
        return bytes(data)

    def drain(self) -> None:
        """Read (and drop) what comes until the other end has closed, value or not (after a
        read interrupted mid-value, what follows is no longer a length and a value)."""
        with contextlib.suppress(OSError):
            while os.read(self.reading, 1 << 16):
                pass

    def shutdown(self) -> None:
        """Say no more values will come from this end (the other end reads EOF)."""
        writing, self.writing = self.writing, None  # shut, whatever the call below says
        if writing is None:
            return
        if writing != self.reading:  # a pipe: closed
            os.close(writing)
        else:  # a socket: shut for writing
            import socket

            with socket.socket(fileno=os.dup(writing)) as sock:
                sock.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        for descriptor in self.descriptors():
            os.close(descriptor)
        self.writing = None
        self.reading = -1


def _wait(channels: list[Any], timeout: float | None) -> list[Any]:
    """Those of ``channels`` (objects with ``fileno``) that can be read, or have ended,
    within ``timeout`` seconds (None: until one can)."""
    poller = select.poll()
    by_descriptor = {}
    for channel in channels:
        by_descriptor[channel.fileno()] = channel
        poller.register(channel.fileno(), select.POLLIN)
    events = poller.poll(None if timeout is None else int(timeout * 1000))
    return [by_descriptor[descriptor] for descriptor, _ in events]


class _Worker:
    """A worker process as this one sees it: its channel (pipes or a socket), the jobs it holds."""

    def __init__(self, connection: _Channel, pid: int = 0) -> None:
        self.connection = connection
        self.held: deque[_Job] = deque()  # answered in the order sent
        self.pid = pid  # a child of this process (forked direct), reaped here; 0: the loader's

    def send(self, job: _Job) -> None:
        self.connection.send(job.call)
        self.held.append(job)

    @property
    def finished(self) -> bool:
        """Told its input has ended (``finish``)."""
        return self.connection.writing is None

    def finish(self) -> None:
        """Tell the worker its input has ended: it finishes what it holds, then ends."""
        with contextlib.suppress(OSError):
            self.connection.shutdown()

    def close(self, wait: bool) -> None:
        """End the worker (``finish``). With ``wait``, return only when it has ended (its
        writes are done)."""
        self.finish()
        if wait:
            self.connection.drain()
        self.connection.close()
        if self.pid:  # it has ended or is ending: its end of the channel is closed or broken
            _ended(self.pid, block=True)


class _Workers:
    """The worker processes of a run, forked warm by a loader process (``_loader``). A
    worker that dies is replaced, and the work it held is redone one file at a time on a
    worker of its own: never in this process, so that an input that crashes the converter
    (a parser's segmentation fault, the out-of-memory killer) cannot end the run, only its
    own file."""

    def __init__(self, jobs: int, task: _Task, first: SourceText | None,
                 direct: bool = False) -> None:
        self.wanted = jobs
        self.task = task
        self.first = first
        self.workers: list[_Worker] = []
        self.spare: list[_Worker] = []  # started for a file redone alone
        self.queue: deque[_Job] = deque()  # made, not sent yet
        self.ended = False  # the input has ended: the jobs queued are the last ones
        self.asked = 0  # workers asked of the loader, not received yet
        self.restarts = 0
        self.loader_pid = 0
        self.control: socket.socket | None = None  # the loader's (started on first need)
        if direct:  # one worker, forked here; the loader only if work piles up (``_grow``)
            self.jobs = 1
            self.workers.append(self._direct_worker())
        else:
            self.jobs = jobs
            self._ask(jobs)

    # -- the loader

    def _direct_worker(self) -> _Worker:
        """A worker forked by this process; it loads the converter on its first job."""
        mine, theirs = _Channel.pipes()
        keep = [d for w in (*self.workers, *self.spare) for d in w.connection.descriptors()]
        keep += mine.descriptors()
        if self.control is not None:
            keep.append(self.control.fileno())
        try:
            pid = _fork(functools.partial(_direct_worker, theirs, keep))
        except BaseException:  # cannot fork (no memory, too many processes): no pipe left open
            mine.close()
            raise
        finally:
            theirs.close()
        return _Worker(mine, pid)

    def _grow(self) -> None:
        """In a direct run, start the loader for the other workers once work piles up."""
        if self.jobs < self.wanted and len(self.queue) >= AHEAD:
            self.jobs = self.wanted

    def _start_loader(self) -> socket.socket:
        import socket

        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        keep = [d for w in (*self.workers, *self.spare) for d in w.connection.descriptors()]
        keep.append(mine.fileno())
        warm = self.first if self.first is not None and \
            len(self.first.text) <= WARM_BYTES else None
        self.loader_pid = _fork(functools.partial(_loader, theirs, keep, self.task, warm))
        theirs.close()
        return mine

    def _ask(self, count: int) -> None:
        if self.control is None:
            self.control = self._start_loader()
        for _ in range(count):
            try:
                self.control.send(b"w")
            except OSError:  # the loader is gone: start another, which is asked again
                self.asked += count
                self._restart()
                return
            self.asked += 1
            count -= 1

    def _received(self) -> None:
        """Take in one answer of the loader (a worker); restart the loader if it died."""
        import socket

        assert self.control is not None
        try:
            message, descriptors, _, _ = socket.recv_fds(self.control, 16, 1)
        except OSError:
            message, descriptors = b"", []
        if descriptors:
            self.asked -= 1
            worker = _Worker(_Channel(descriptors[0]))
            (self.workers if len(self.workers) < self.jobs else self.spare).append(worker)
            return
        if not message:  # the loader ended (killed, out of memory, could not fork)
            self._restart()

    def _restart(self) -> None:
        """Start another loader (without the warm-up conversion, which may be what killed
        the last one) and ask it for the workers still wanted."""
        self._end_loader()
        self.control = None
        self.restarts += 1
        if self.restarts > 3:
            raise OSError("could not start worker processes")
        self.first = None
        asked, self.asked = self.asked, 0
        self._ask(asked)

    def _end_loader(self) -> None:
        """Close the loader's socket and reap it. It ends as soon as its workers have (they
        have, or hold no work); one that has not ended after ``LOADER_GRACE`` seconds is
        killed (it writes nothing), so no unforeseen wait can hold the run forever."""
        if self.control is None:  # never started (a direct run)
            return
        self.control.close()
        ended = _ended_within(self.loader_pid, LOADER_GRACE)
        waited, pause = 0.0, 0.001
        while ended is None and waited <= LOADER_GRACE:  # no pidfd: look again
            time.sleep(pause)
            waited, pause = waited + pause, min(pause * 2, 0.05)
            ended = True if _ended(self.loader_pid, block=False) else None
        if not ended:
            with contextlib.suppress(OSError):
                os.kill(self.loader_pid, signal.SIGKILL)
            _ended(self.loader_pid, block=True)

    # -- work

    def waiting(self) -> int:
        """Jobs made and not sent to a worker yet."""
        return len(self.queue)

    def arrived(self) -> bool:
        """A worker is there to take jobs (none before the loader has loaded the converter)."""
        return bool(self.workers)

    def idle(self) -> bool:
        """A worker has nothing to do and nothing waits for one."""
        return not self.queue and any(not w.held for w in self.workers)

    def submit(self, job: _Job) -> _Job:
        job.sent = True
        self.queue.append(job)
        self._dispatch()
        return job

    def _dispatch(self) -> None:
        while self.queue:
            # the last jobs of a run go to the first worker that is done, not behind the job
            # in hand of a busy one (while another worker, done first, would wait idle)
            limit = 1 if self.ended and len(self.queue) < self.jobs else HELD
            if self.queue[0].read is not None:  # standard input's text: only to a worker that
                limit = 1  # is reading (one still writing an answer could never take it in)
            free = [w for w in self.workers if len(w.held) < limit and not w.finished]
            if not free:
                return
            worker = min(free, key=lambda w: len(w.held))
            job = self.queue.popleft()
            try:
                worker.send(job)
            except OSError:  # it died: its jobs are redone
                self.queue.appendleft(job)
                self._died(worker)

    def poll(self, block: bool = False) -> None:
        """Take in the answers that are there (with ``block``, wait for at least one event:
        an answer, a worker that died or arrived) and send the waiting jobs on."""
        self._grow()
        if len(self.workers) + self.asked < self.jobs:
            self._ask(self.jobs - len(self.workers) - self.asked)
        waited: list[Any] = [w.connection for w in self.workers if w.held]
        if self.asked and self.control is not None:
            waited.append(self.control)
        if not waited:  # nothing held, no worker awaited: nothing to wait for
            self._dispatch()
            return
        for ready in _wait(waited, timeout=None if block else 0):
            if ready is self.control:
                self._received()
                continue
            worker = next(w for w in self.workers if w.connection is ready)
            try:
                answered, value = worker.connection.recv()
            except (EOFError, OSError):
                self._died(worker)
                continue
            job = worker.held.popleft()
            job.answered = True
            if answered:
                job.value = value
            else:
                job.error = value
        self._dispatch()
        if self.ended and not self.queue and not any(w.held for w in self.workers):
            for worker in self.workers:  # all answered: they end while this process hands on
                worker.finish()  # the results (``close`` then waits less, or not at all)

    def _died(self, worker: _Worker) -> None:
        _worker_died()
        self.workers.remove(worker)
        for job in worker.held:
            job.lost = True
        worker.held.clear()
        worker.close(wait=False)
        self._ask(1)

    def isolated(self, function: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
        """``function(*args)`` on a worker of its own: (True, its result), or (False, None)
        when that worker dies too."""
        while not self.spare:
            if not self.asked or len(self.workers) + self.asked <= self.jobs:
                self._ask(1)
            self._received()
        alone = self.spare[-1]
        try:
            alone.connection.send((function, args))
            answered, value = alone.connection.recv()
        except (EOFError, OSError):
            self.spare.remove(alone)
            alone.close(wait=False)
            return False, None
        if not answered:
            raise value
        return True, value

    def close(self, abort: bool = False) -> None:
        """End every worker (each finishes the batch in hand; its writes are complete when
        this returns) and the loader (with ``abort``, at once: it writes nothing, and may
        still be loading the converter)."""
        every = (*self.workers, *self.spare)
        if abort and self.task.destination is None:  # nothing to complete (a check): a worker
            for worker in every:  # of this process's own ends now, not after a slow file
                if worker.pid:
                    with contextlib.suppress(OSError):
                        os.kill(worker.pid, signal.SIGKILL)
        for worker in every:  # all told first: they end side by side, not one after another
            worker.finish()
        for worker in every:
            worker.close(wait=True)
        if abort and self.control is not None:
            with contextlib.suppress(OSError):
                os.kill(self.loader_pid, signal.SIGKILL)
        self._end_loader()


def _fork(child: Callable[[], None]) -> int:
    """Fork; the child runs ``child`` and ends there (it never returns into the caller)."""
    for stream in (sys.stdout, sys.stderr):  # nothing buffered is written twice
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - a child process
        code = 0
        try:
            child()
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    return pid


def _loader(control: socket.socket, inherited: list[int], task: _Task,
            warm: SourceText | None) -> None:
    """The loader process: Ctrl-C is the main process's to handle (it stops the workers);
    load the converter once (and convert the first file once, to warm what it builds
    lazily), then fork a warm worker for each request until the main process closes the
    control socket."""
    import socket

    for descriptor in inherited:  # the main process's ends: a worker must see its own EOF
        os.close(descriptor)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _load_converter()
    if warm is not None:
        with contextlib.suppress(Exception):  # a worker meets (and reports) it again
            files.convert_or_audit(warm.text, task.options, task.render, task.audit)
    children: set[int] = set()
    try:
        while control.recv(16):
            children -= {pid for pid in children if _ended(pid, block=False)}
            mine, theirs = socket.socketpair()
            try:
                children.add(_fork(functools.partial(
                    _worker, _Channel(theirs.fileno()), [control.fileno(), mine.fileno()])))
                socket.send_fds(control, [b"w"], [mine.fileno()])
            except OSError:
                return  # cannot fork (the main process sees this process end), or it is gone
            finally:  # the worker's socket is the main process's alone (or nobody's: it ends)
                theirs.close()
                mine.close()
    except OSError:
        pass  # the main process is gone
    finally:
        control.close()
        for pid in children:  # each ends when its socket does; its time is counted
            _ended(pid, block=True)


def _ended(pid: int, block: bool) -> bool:
    """Whether child ``pid`` has ended (and is reaped)."""
    try:
        return os.waitpid(pid, 0 if block else os.WNOHANG)[0] == pid
    except ChildProcessError:
        return True


def _ended_within(pid: int, seconds: float) -> bool | None:
    """Whether child ``pid`` ends (and is reaped) within ``seconds``, waited for on a pidfd:
    woken the moment it ends, not at the next look. None where there is no pidfd (it has not
    ended yet; the caller looks again)."""
    if _ended(pid, block=False):  # (an unreaped child keeps its pid: the pidfd is its own)
        return True
    try:
        descriptor = os.pidfd_open(pid)
    except (AttributeError, OSError):  # not Linux >= 5.3
        return None
    try:
        select.select([descriptor], [], [], seconds)
    finally:
        os.close(descriptor)
    return _ended(pid, block=False)


def _load_converter() -> None:
    import importlib

    for module in ("migrator.convert.document", "migrator.check.audit"):
        importlib.import_module(module)


def _direct_worker(channel: _Channel, inherited: list[int]) -> None:
    """A worker forked by the main process: Ctrl-C is the main process's to handle (as for
    the loader's workers, which inherit this from the loader)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()  # what it inherits (the results entry...) is never walked by its collector
    gc.disable()  # nor, once the first job is done (``_worker``), what loading the converter made
    _worker(channel, inherited)


def _worker(connection: _Channel, inherited: list[int]) -> None:
    """A worker process: run each call the main process sends, answer (True, result) or
    (False, exception), until the main process closes its end."""
    for descriptor in inherited:
        os.close(descriptor)
    while True:
        try:
            function, args = connection.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple[bool, Any] = (True, function(*args))
        except Exception as exc:  # handed to the main process, raised there
            answer = (False, exc)
        try:
            connection.send(answer)
        except OSError:
            return
        except Exception as exc:  # an answer that cannot be pickled
            connection.send((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
        if not gc.isenabled():  # a direct worker's first job: it has loaded the converter
            gc.freeze()
            gc.enable()


@functools.cache
def _worker_died() -> None:
    """A worker process died (killed, out of memory, crashed): its files are redone one by
    one on a fresh worker. Said once per run (cached)."""
    print("trainjob-migrate: a worker process died; its files are converted again one by "
          "one", file=sys.stderr)


def _process_batch(batch: list[tuple[str, str]], task: _Task) -> list[FileResult]:
    results = [files.process_file(name, relative, task.options, task.render, task.max_bytes,
                                  task.audit, task.destination, task.review)
               for name, relative in batch]
    return results if task.keep_text else [result.slim() for result in results]


def _crashed(name: str, relative: str, task: _Task, read: SourceText | None = None
             ) -> FileResult:
    """The result of a file that killed the worker converting it, twice: Y105, unchanged."""
    if read is None:
        got = sources.read(name, relative, task.max_bytes)
        if isinstance(got, Unreadable):
            return FileResult(name, relative, unreadable=got)
        read = got
    finding = Finding("Y105", Severity.ERROR, "", "converting this file killed the worker "
                      "process twice (a crash in a parser or the converter, or too little "
                      "memory); the file was left unchanged")
    document = DocumentResult(0, 1, "failed", read.text, findings=[finding])
    result = FileResult(name, relative, source=read, result=TextResult(read.text, [document]))
    return result if task.keep_text else result.slim()
