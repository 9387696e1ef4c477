"""Busy loops beside the server: races are checked on a machine whose cores are taken."""
import multiprocessing
import time


def _spin(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


class BusyLoops:
    """`count` processes spinning for at most `seconds` (they stop on their own), as a context."""

    def __init__(self, count=2, seconds=300):
        self.processes = [multiprocessing.Process(target=_spin, args=(seconds,), daemon=True) for _ in range(count)]

    def __enter__(self):
        for process in self.processes:
            process.start()
        return self

    def __exit__(self, *exc):
        for process in self.processes:
            process.terminate()
            process.join(10)
