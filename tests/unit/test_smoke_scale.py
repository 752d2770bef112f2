"""`pix3 smoke`'s shards and default workers (pure): a CI matrix of n jobs runs each selected scene
exactly once, whatever order each job found the scenes in."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pix3tools.smoke import WORKER_BYTES, Shard, default_workers, parse_shard, shard_scenes

# Scene paths: any text in a few folders (what sorts them is their code points, nothing else).
SCENE = st.builds(
    "{}{}.pix3scene".format,
    st.sampled_from(["", "scenes/", "levels/", "levels/world-2/", "Ä/"]),
    st.text(alphabet="abzAZ09_-. é", min_size=1, max_size=8),
)
SELECTIONS = st.lists(SCENE, max_size=60, unique=True)


@given(SELECTIONS, st.integers(min_value=1, max_value=12))
def test_shards_partition_any_selection(scenes: list[str], total: int) -> None:
    shards = [shard_scenes(scenes, Shard(i, total)) for i in range(1, total + 1)]
    seen = [scene for shard in shards for scene in shard]
    assert sorted(seen) == sorted(scenes)  # complete, and disjoint: no scene twice
    sizes = [len(shard) for shard in shards]
    assert max(sizes) - min(sizes) <= 1  # balanced
    for shard in shards:  # each shard keeps the selection's order (the report's)
        assert shard == [scene for scene in scenes if scene in shard]


@given(SELECTIONS, st.integers(min_value=1, max_value=12), st.randoms(use_true_random=False))
def test_a_shard_is_the_same_on_every_machine(scenes: list[str], total: int, rng: random.Random) -> None:
    """Another job may find the same scenes in another order: it takes the same ones."""
    shuffled = scenes[:]
    rng.shuffle(shuffled)
    for index in range(1, total + 1):
        assert set(shard_scenes(shuffled, Shard(index, total))) == set(shard_scenes(scenes, Shard(index, total)))


def test_a_shard_of_more_jobs_than_scenes_is_empty_and_duplicates_count_once() -> None:
    scenes = ["b.pix3scene", "a.pix3scene", "b.pix3scene"]
    assert [shard_scenes(scenes, Shard(i, 3)) for i in (1, 2, 3)] == [["a.pix3scene"], ["b.pix3scene"], []]


@pytest.mark.parametrize(
    ("text", "shard"),
    [
        ("1/1", Shard(1, 1)),
        ("2/4", Shard(2, 4)),
        (" 4 / 4 ", Shard(4, 4)),
        ("0/4", None),
        ("5/4", None),
        ("2", None),
        ("2/", None),
        ("/4", None),
        ("-1/4", None),
        ("1.5/4", None),
        ("a/b", None),
        ("", None),
        ("1/4/2", None),
        ("٢/٤", None),
    ],
)
def test_parse_shard(text: str, shard: Shard | None) -> None:
    assert parse_shard(text) == shard


def test_a_shard_outside_its_range_cannot_be_made() -> None:
    with pytest.raises(ValueError, match=r"not one of 1\.\.4"):
        Shard(5, 4)


@pytest.mark.parametrize(
    ("cores", "available", "workers"),
    [
        (2, 16 * 1024**3, 3),  # this machine: the cores decide
        (2, None, 3),  # no memory figure (not Linux)
        (8, 2 * WORKER_BYTES, 2),  # little memory: it decides
        (2, WORKER_BYTES - 1, 1),  # never fewer than one
        (0, None, 2),  # a machine that says no core still has one
        (64, 1024**4, 16),  # one Chrome's browser process caps it
    ],
)
def test_default_workers(cores: int, available: int | None, workers: int) -> None:
    assert default_workers(cores, available) == workers
