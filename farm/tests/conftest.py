"""A local Ray cluster of a few CPU workers, and the caustica executable the farm drives."""

import os

import pytest

_REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def caustica() -> str:
    """$CAUSTICA, else the build in the repository: a missing executable fails the tests, never
    skips them."""
    path = os.environ.get("CAUSTICA") or os.path.join(_REPOSITORY, "build", "renderer", "caustica")
    assert os.access(path, os.X_OK), f"no caustica executable at {path}: build it, or set $CAUSTICA"
    return path


@pytest.fixture(scope="session")
def scene() -> str:
    return os.path.join(_REPOSITORY, "scenes", "pool.yaml")


@pytest.fixture(scope="session")
def ray_cluster():
    import ray

    ray.init(num_cpus=3, num_gpus=0, include_dashboard=False, logging_level="WARNING", log_to_driver=False)
    yield ray
    ray.shutdown()
