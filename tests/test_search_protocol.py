"""The one search protocol (solvers.search_control.Search), checked the same way for every
family the registry knows: lazy solutions, count, cancel from another thread, progress as
(fraction, found), and a bounded trace."""

from __future__ import annotations

import threading

import pytest

from tessera.solvers.registry import FAMILIES, load
from tessera.solvers.search_control import Cancelled, Search
from tessera.solvers.trace import EventKind

EXAMPLES = {
    "polycube": "soma",
    "dice": "instant-insanity",
    "domino": "domino-small",
    "kenken": "kenken-4x4",
}


def test_every_registered_family_has_an_example():
    assert set(EXAMPLES) == set(FAMILIES)


@pytest.mark.parametrize("family", sorted(EXAMPLES))
def test_listing_counts_and_progress_follow_the_protocol(family):
    loaded = load(EXAMPLES[family])
    assert loaded.family == family
    search = loaded.solve()
    assert isinstance(search, Search)
    reports = []
    listed = list(search.solutions(lambda fraction, found: reports.append((fraction, found))))
    assert listed and search.done and search.found == len(listed)
    assert search.progress() == 1.0
    assert all(0.0 <= f <= 1.0 and n >= 0 for f, n in reports)
    assert loaded.solve().count() == len(listed)
    assert loaded.solve().count(limit=1) == 1


@pytest.mark.parametrize("family", sorted(EXAMPLES))
def test_a_trace_is_bounded_and_ends_at_the_first_solution(family):
    trace = load(EXAMPLES[family]).trace()
    kinds = [e.kind for e in trace.events]
    assert not trace.truncated and kinds[-1] is EventKind.SOLUTION
    assert kinds.count(EventKind.SOLUTION) == 1
    short = load(EXAMPLES[family]).trace(max_events=1)
    assert len(short.events) <= 1
    placed = [e for e in trace.events if e.kind is EventKind.PLACE]
    if placed:  # KenKen 4x4 is solved by propagation alone: no choice to describe
        assert isinstance(trace.describe(placed[0].choice), str)


def test_a_search_dense_in_solutions_still_reports_progress():
    """Listing solid pentominoes finds a solution in every slice of the kernel; the window's
    progress bar must move all the same (it sat at 0% through the whole listing)."""
    search = load("pentominoes-3x4x5").solve()
    reports = []

    def on_progress(fraction: float, found: int) -> None:
        reports.append(fraction)
        if len(reports) == 3:
            search.cancel()

    for _ in search.solutions(on_progress):
        pass
    assert len(reports) >= 3 and reports[-1] > 0.0
    assert search.cancelled and not search.done


def test_cancel_from_another_thread_gives_the_partial_count():
    search = load("pentominoes-6x10").solve()
    started = threading.Event()

    def on_progress(fraction: float, found: int) -> None:
        started.set()

    timer = threading.Thread(target=lambda: started.wait(60) and search.cancel())
    timer.start()
    with pytest.raises(Cancelled) as info:
        search.count(on_progress=on_progress)
    timer.join()
    assert 0 <= info.value.partial < 2339
