import Foundation

/// A registered iBeacon and where it hangs.
public struct Beacon: Sendable, Equatable {
    public var reference: BeaconReference
    public var lat: Double
    public var lon: Double
    public var floor: Int?
    public var name: String

    public init(reference: BeaconReference, lat: Double, lon: Double, floor: Int?, name: String) {
        self.reference = reference
        self.lat = lat
        self.lon = lon
        self.floor = floor
        self.name = name
    }

    /// A `PUT` body: `{"lat", "lon", "floor"?, "name"?}`, each failure naming its field.
    public init(reference: BeaconReference, json: JSONValue) throws(ValidationError) {
        guard case .object(let members) = json else { throw ValidationError(field: nil, "the body must be a JSON object") }
        let fields = JSONFields(members)
        self.reference = reference
        lat = try fields.requiredNumber("lat", in: -90...90)
        lon = try fields.requiredNumber("lon", in: -180...180)
        floor = try fields.optionalInteger("floor", in: -20...200)
        name = try TextRules.normalizedText(try fields.optionalString("name") ?? "", field: "name", maxScalars: 200, allowEmpty: true)
    }
}

extension BeaconReference {
    /// The three path segments of `/beacons/{uuid}/{major}/{minor}`, each failure naming its part.
    public init(uuid: String, major: String, minor: String) throws(ValidationError) {
        guard Self.isUUID(Substring(uuid)) else { throw ValidationError(field: "uuid", "must be a UUID such as f7826da6-4fa2-4e98-8024-bc5b71e0893e") }
        guard let majorValue = Int(major), (0...65535).contains(majorValue) else { throw ValidationError(field: "major", "must be 0 to 65535") }
        guard let minorValue = Int(minor), (0...65535).contains(minorValue) else { throw ValidationError(field: "minor", "must be 0 to 65535") }
        try self.init(parsing: "\(uuid):\(majorValue):\(minorValue)")
    }
}
