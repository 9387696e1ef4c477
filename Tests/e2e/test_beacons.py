"""`noticeboard beacons import` on the real binary, against a running server."""
import subprocess

from conftest import BINARY

CSV = """uuid,major,minor,lat,lon,floor,name
F7826DA6-4FA2-4E98-8024-BC5B71E0893E,1,1,48.85,2.35,2,Canteen
f7826da6-4fa2-4e98-8024-bc5b71e0893e,1,2,48.851,2.351,,Hall
not-a-uuid,1,3,48.85,2.35,0,Bad
f7826da6-4fa2-4e98-8024-bc5b71e0893e,1,4,95,2.35,0,Too far north
"""


def test_an_import_creates_good_rows_and_names_the_bad_lines(server_factory, database_url, tmp_path):
    server = server_factory()
    source = tmp_path / "beacons.csv"
    source.write_text(CSV)
    result = subprocess.run([BINARY, "beacons", "import", str(source), "--database-url", database_url],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "2 created, 0 updated, 2 rows rejected" in result.stdout
    assert "line 4: uuid" in result.stderr and "line 5: lat" in result.stderr
    canteen = server.get("/api/v1/beacons/f7826da6-4fa2-4e98-8024-bc5b71e0893e/1/1").json()
    assert canteen == {"uuid": "f7826da6-4fa2-4e98-8024-bc5b71e0893e", "major": 1, "minor": 1,
                       "lat": 48.85, "lon": 2.35, "floor": 2, "name": "Canteen"}
    assert server.get("/api/v1/beacons/f7826da6-4fa2-4e98-8024-bc5b71e0893e/1/2").json()["floor"] is None
    # Importing again updates, and a post can be placed by an imported beacon.
    again = subprocess.run([BINARY, "beacons", "import", str(source), "--database-url", database_url], capture_output=True, text=True, timeout=120)
    assert "0 created, 2 updated" in again.stdout
    post = server.post({"beacon": "F7826DA6-4FA2-4E98-8024-BC5B71E0893E:1:1", "message": "hi", "tag": "food"})
    assert post.status_code == 201 and post.json()["floor"] == 2
