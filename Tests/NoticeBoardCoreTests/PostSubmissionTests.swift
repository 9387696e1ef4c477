import Foundation
import NoticeBoardCore
import Testing

@Suite struct PostSubmissionTests {
    func submission(_ json: String) throws -> PostSubmission {
        try PostSubmission(json: try #require(JSONValue.parse(Data(json.utf8))))
    }

    func failingField(_ json: String) -> String?? {
        do {
            _ = try submission(json)
            return .none
        } catch let error as ValidationError {
            return .some(error.field)
        } catch {
            return .none
        }
    }

    @Test func acceptsAMinimalPostAndNormalisesIt() throws {
        let s = try submission(#"{"lat": 22.4, "lon": 114.2, "message": "  hi\r\nthere \t", "tag": " Food ", "id": 5, "createdAt": "x"}"#)
        #expect(s.location == .coordinates(lat: 22.4, lon: 114.2, floor: nil))
        #expect(s.message == "hi\nthere")
        #expect(s.tag == "food")
        #expect(s.heading == nil && s.accuracy == nil)
    }

    @Test func acceptsEveryOptionalField() throws {
        let s = try submission(#"{"lat": -90, "lon": 180, "heading": 359.9, "message": "m", "tag": "美食", "accuracy": 10000, "floor": 200}"#)
        #expect(s.location == .coordinates(lat: -90, lon: 180, floor: 200))
        #expect(s.heading == 359.9 && s.accuracy == 10000 && s.tag == "美食")
    }

    @Test(arguments: [
        (#"{"lon": 1, "message": "m", "tag": "t"}"#, "lat"),
        (#"{"lat": "22.4", "lon": 1, "message": "m", "tag": "t"}"#, "lat"),
        (#"{"lat": 90.0001, "lon": 1, "message": "m", "tag": "t"}"#, "lat"),
        (#"{"lat": true, "lon": 1, "message": "m", "tag": "t"}"#, "lat"),
        (#"{"lat": 1, "lon": -180.5, "message": "m", "tag": "t"}"#, "lon"),
        (#"{"lat": 1, "lon": 1, "heading": 360, "message": "m", "tag": "t"}"#, "heading"),
        (#"{"lat": 1, "lon": 1, "heading": -1, "message": "m", "tag": "t"}"#, "heading"),
        (#"{"lat": 1, "lon": 1, "message": "   ", "tag": "t"}"#, "message"),
        (#"{"lat": 1, "lon": 1, "message": 5, "tag": "t"}"#, "message"),
        (#"{"lat": 1, "lon": 1, "message": "a\u0000b", "tag": "t"}"#, "message"),
        (#"{"lat": 1, "lon": 1, "message": "a\rb", "tag": "t"}"#, "message"),
        (#"{"lat": 1, "lon": 1, "message": "m"}"#, "tag"),
        (#"{"lat": 1, "lon": 1, "message": "m", "tag": "food!"}"#, "tag"),
        (#"{"lat": 1, "lon": 1, "message": "m", "tag": "😀"}"#, "tag"),
        (#"{"lat": 1, "lon": 1, "message": "m", "tag": "t", "accuracy": -1}"#, "accuracy"),
        (#"{"lat": 1, "lon": 1, "message": "m", "tag": "t", "floor": 2.5}"#, "floor"),
        (#"{"lat": 1, "lon": 1, "message": "m", "tag": "t", "floor": 201}"#, "floor"),
        (#"{"lat": 1, "lon": 1, "message": "m", "tag": "t", "floor": "1"}"#, "floor"),
        (#"{"beacon": "nope", "message": "m", "tag": "t"}"#, "beacon"),
        (#"{"beacon": "f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:2", "lat": 1, "message": "m", "tag": "t"}"#, "beacon"),
        (#"{"beacon": "f7826da6-4fa2-4e98-8024-bc5b71e0893e:1:65536", "message": "m", "tag": "t"}"#, "beacon"),
    ])
    func rejectsBadInputNamingTheField(json: String, field: String) {
        #expect(failingField(json) == .some(field))
    }

    @Test func rejectsANonObjectWithoutAField() {
        #expect(failingField("[1, 2]") == .some(nil))
        #expect(JSONValue.parse(Data("{\"lat\": NaN}".utf8)) == nil)
        #expect(JSONValue.parse(Data("{nope".utf8)) == nil)
    }

    @Test func messageLengthCountsUnicodeScalars() throws {
        let emoji = String(repeating: "😢", count: 2000)
        #expect(try submission(#"{"lat": 1, "lon": 1, "message": "\#(emoji)", "tag": "t"}"#).message == emoji)
        #expect(failingField(#"{"lat": 1, "lon": 1, "message": "\#(emoji)x", "tag": "t"}"#) == .some("message"))
        // A flag is one grapheme of two scalars: 1000 flags are 2000 scalars, 1001 are too many.
        let flags = String(repeating: "🇭🇰", count: 1001)
        #expect(failingField(#"{"lat": 1, "lon": 1, "message": "\#(flags)", "tag": "t"}"#) == .some("message"))
    }

    @Test func tagsAreLowerCasedUnicodeAware() throws {
        #expect(try TextRules.normalizedTag("  ÉTÉ Street_Food-2 ") == "été street_food-2")
        #expect(try TextRules.normalizedTag("Ελληνικά") == "ελληνικά")
        #expect(try TextRules.normalizedTag("٣") == "٣")
        #expect(throws: ValidationError.self) { try TextRules.normalizedTag(String(repeating: "a", count: 81)) }
        #expect(throws: ValidationError.self) { try TextRules.normalizedTag("a\tb") }
    }

    @Test func beaconsAreNormalisedToLowerCase() throws {
        let beacon = try BeaconReference(parsing: "F7826DA6-4FA2-4E98-8024-BC5B71E0893E:0:65535")
        #expect(beacon.description == "f7826da6-4fa2-4e98-8024-bc5b71e0893e:0:65535")
    }

    @Test func canonicalTextIgnoresKeyOrderAndSpacing() throws {
        let a = try #require(JSONValue.parse(Data(#"{"b": [1, 2.5, "x"], "a": null}"#.utf8)))
        let b = try #require(JSONValue.parse(Data(#"{"a":null,"b":[1,2.5,"x"]}"#.utf8)))
        #expect(a.canonicalText == b.canonicalText)
        #expect(a.canonicalText != JSONValue.parse(Data(#"{"a":null,"b":[1,2.5,"y"]}"#.utf8))!.canonicalText)
    }
}
