"""Places on the real binary: `noticeboard places import` while a server runs (it follows the
import within a second), and a stream narrowed to a place."""
import json
import subprocess
import time

from conftest import BINARY, wait_for_streams
from test_stream import EventReader

CANTEEN = [[114.2060, 22.4190], [114.2070, 22.4190], [114.2070, 22.4200], [114.2060, 22.4200], [114.2060, 22.4190]]


def feature(properties, ring, holes=()):
    return {"type": "Feature", "properties": properties, "geometry": {"type": "Polygon", "coordinates": [ring, *holes]}}


def test_an_import_creates_good_places_and_names_the_bad_features(server_factory, database_url, tmp_path):
    server = server_factory()
    collection = {"type": "FeatureCollection", "features": [
        feature({"slug": "canteen", "name": "Canteen", "floors": [0, 1], "description": "Hot food"}, CANTEEN),
        feature({"slug": "bow", "name": "Bow tie"}, [[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]),
        feature({"slug": "holed", "name": "Holed"}, CANTEEN, holes=[CANTEEN]),
        feature({"name": "No slug"}, CANTEEN),
        feature({"slug": "dateline", "name": "Across the date line"}, [[179.9, -1], [-179.9, -1], [-179.9, 1], [179.9, 1]]),
        {"type": "Feature", "properties": {"slug": "point", "name": "A point"}, "geometry": {"type": "Point", "coordinates": [0, 0]}},
        feature({"slug": "terrace", "name": "Terrace, with altitudes"}, [[lon, lat, 12.5] for lon, lat in CANTEEN]),
    ]}
    source = tmp_path / "places.geojson"
    source.write_text(json.dumps(collection))
    result = subprocess.run([BINARY, "places", "import", str(source), "--database-url", database_url], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "3 created, 0 replaced, 4 features rejected" in result.stdout
    for expected in ("feature 1: polygon", "feature 2: geometry", "feature 3: slug", "feature 5: geometry"):
        assert expected in result.stderr, result.stderr
    # The running server follows a change another process committed, within a second.
    deadline = time.time() + 1.0
    while server.get("/api/v1/places/canteen").status_code != 200:
        assert time.time() < deadline, "the server did not follow the import within a second"
        time.sleep(0.05)
    canteen = server.get("/api/v1/places/canteen").json()
    assert canteen["floors"] == [0, 1] and canteen["description"] == "Hot food" and len(canteen["polygon"]) == 4
    assert server.get("/api/v1/places/terrace").json()["polygon"] == canteen["polygon"]
    assert [p["slug"] for p in server.get("/api/v1/places", params={"lat": 0, "lon": 180}).json()["places"]] == ["dateline"]
    again = subprocess.run([BINARY, "places", "import", str(source), "--database-url", database_url], capture_output=True, text=True, timeout=120)
    assert "0 created, 3 replaced" in again.stdout
    not_geojson = tmp_path / "list.json"
    not_geojson.write_text("[1, 2]")
    refused = subprocess.run([BINARY, "places", "import", str(not_geojson), "--database-url", database_url], capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "FeatureCollection" in refused.stderr


def test_a_stream_of_a_place_hears_only_posts_inside_it_and_on_its_floors(server_factory, database_url, tmp_path):
    server = server_factory()
    source = tmp_path / "places.geojson"
    source.write_text(json.dumps({"type": "FeatureCollection", "features": [
        feature({"slug": "canteen", "name": "Canteen"}, CANTEEN),
        feature({"slug": "upstairs", "name": "Upstairs", "floors": [1, 2]}, CANTEEN)]}))
    assert subprocess.run([BINARY, "places", "import", str(source), "--database-url", database_url], capture_output=True, timeout=120).returncode == 0
    deadline = time.time() + 5
    while server.get("/api/v1/places/upstairs").status_code != 200 and time.time() < deadline:
        time.sleep(0.05)
    canteen = EventReader(server.url + "/api/v1/posts/stream", {"place": "canteen"})
    upstairs = EventReader(server.url + "/api/v1/posts/stream", {"place": "upstairs", "lat": 22.4195, "lon": 114.2065, "radius": 1000})
    assert canteen.response.status_code == 200 and upstairs.response.status_code == 200
    refused = server.get("/api/v1/posts/stream", params={"place": "nowhere"})
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "place"
    wait_for_streams(server, 2)
    outside = server.post({"lat": 22.4201, "lon": 114.2065, "message": "outside", "tag": "food"}).json()
    ground = server.post({"lat": 22.4190, "lon": 114.2065, "message": "on the edge, ground floor", "tag": "food", "floor": 0}).json()
    first = server.post({"lat": 22.4195, "lon": 114.2065, "message": "first floor", "tag": "food", "floor": 1}).json()
    canteen_events = [canteen.next(), canteen.next()]
    assert {json.loads(event["data"])["id"] for event in canteen_events} == {ground["id"], first["id"]}
    assert canteen.none_within(0.5), "a post outside the place reached its stream"
    heard = json.loads(upstairs.next()["data"])
    assert heard["id"] == first["id"] and heard["distance"] < 1
    assert upstairs.none_within(0.5), "a post on another floor reached the upstairs stream"
    assert outside["id"] not in (ground["id"], first["id"])

    # Redrawn: the canteen grows north. Its stream ends (it would go on matching the old outline);
    # resuming with Last-Event-ID hears what was posted in the new part meanwhile. The other
    # place's stream goes on: its outline did not change when the places were read again.
    grown = [[114.2060, 22.4190], [114.2070, 22.4190], [114.2070, 22.4210], [114.2060, 22.4210]]
    source.write_text(json.dumps({"type": "FeatureCollection", "features": [feature({"slug": "canteen", "name": "Canteen"}, grown)]}))
    assert subprocess.run([BINARY, "places", "import", str(source), "--database-url", database_url], capture_output=True, timeout=120).returncode == 0
    deadline = time.time() + 5
    while len(server.get("/api/v1/places/canteen").json()["polygon"]) != 4 or server.get("/api/v1/places/canteen").json()["polygon"][2][1] != 22.421:
        assert time.time() < deadline, "the server did not follow the redrawn place"
        time.sleep(0.05)
    north = server.post({"lat": 22.4205, "lon": 114.2065, "message": "in the new part", "tag": "food", "floor": 1}).json()
    south = server.post({"lat": 22.4195, "lon": 114.2065, "message": "in both outlines", "tag": "food", "floor": 2}).json()
    assert canteen.ended.wait(5), "the stream of a redrawn place went on"
    assert canteen.none_within(0.2), "an event reached the stream of the old outline"
    assert json.loads(upstairs.next()["data"])["id"] == south["id"]
    assert not upstairs.ended.is_set(), "a place whose outline did not change lost its stream"
    resumed = EventReader(server.url + "/api/v1/posts/stream", {"place": "canteen"}, headers={"Last-Event-ID": canteen_events[-1]["id"]})
    assert [json.loads(resumed.next()["data"])["id"] for _ in range(2)] == [north["id"], south["id"]]
    for reader in (canteen, upstairs, resumed):
        reader.close()
