"""What of site-packages the jobs' root offers: each distribution's top-level paths, read from
its RECORD row by row, the same as importlib.metadata's `files` give them."""

from importlib import metadata

import pytest

from app.sandbox import packages

pytestmark = pytest.mark.server


def _plain(dist: metadata.Distribution) -> set[str]:
    """The first part of every file, as importlib.metadata itself lists them."""
    return {f.parts[0] for f in dist.files or () if f.parts}


def test_every_installed_distribution_gives_the_tops_its_files_give():
    dists = list(metadata.distributions())
    assert len(dists) > 20 and any(d.metadata["Name"] == "torch" for d in dists)
    for dist in dists:
        assert packages._top_names(dist) == _plain(dist), dist.metadata["Name"]


def _distribution(tmp_path, record: str | None, sources: str | None = None) -> metadata.Distribution:
    info = tmp_path / ("demo-1.0.dist-info" if sources is None else "demo.egg-info")
    info.mkdir()
    (info / ("METADATA" if sources is None else "PKG-INFO")).write_text("Name: demo\nVersion: 1.0\n")
    if record is not None:
        (info / "RECORD").write_text(record)
    if sources is not None:
        (info / "SOURCES.txt").write_text(sources)
    return metadata.PathDistribution(info)


@pytest.mark.parametrize(
    "record",
    [
        "demo/__init__.py,sha256=x,10\ndemo/sub/a.py,,\ndemo_mod.py,,\n",
        '"odd,name/x.py",sha256=y,3\n../../bin/demo,,\n./lead/x.py,,\n/abs/path.py,,\ndemo.libs/l.so,,\n',
        "__pycache__/demo.cpython-311.pyc,,\ndemo-1.0.dist-info/RECORD,,\nsetup.pth,,\n",
    ],
)
def test_odd_record_rows_give_what_importlib_gives(tmp_path, record):
    dist = _distribution(tmp_path, record)
    assert packages._top_names(dist) == _plain(dist)
    assert packages._top_names(dist)  # the case holds rows at all


def test_a_distribution_without_record_is_read_as_importlib_reads_it(tmp_path):
    dist = _distribution(tmp_path, None, sources="demo/__init__.py\ndemo/b.py\nother.py\n")
    assert packages._top_names(dist) == _plain(dist) == {"demo", "other.py"}


def test_offered_paths_exist_and_cover_torch_and_its_dist_info():
    torch = next(o for o in packages.offered(packages.DEFAULT) if o.name == "torch")
    names = {p.name for p in torch.paths}
    assert "torch" in names and any(n.endswith(".dist-info") for n in names)
    assert all(p.exists() for p in torch.paths) and "torch" in torch.modules
