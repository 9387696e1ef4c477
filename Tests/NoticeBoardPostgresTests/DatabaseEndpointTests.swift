import NoticeBoardPostgres
import Testing

@Suite struct DatabaseEndpointTests {
    @Test func oneHostAsBefore() throws {
        let endpoint = try DatabaseEndpoint(url: "postgres://ann:s%40cret@db.example:6432/board?sslmode=require")
        #expect(endpoint.hosts == [DatabaseHost(name: "db.example", port: 6432)])
        #expect(endpoint.username == "ann" && endpoint.password == "s@cret" && endpoint.database == "board")
        #expect(endpoint.requireTLS && endpoint.targetSession == .any)
    }

    @Test func severalHostsInOrderWithDefaultPortsAndIPv6() throws {
        let endpoint = try DatabaseEndpoint(
            url: "postgresql://u:p@h1:5433,h2,[::1]:7000,[fe80::2]/db?target_session_attrs=read-write")
        #expect(endpoint.hosts == [
            DatabaseHost(name: "h1", port: 5433), DatabaseHost(name: "h2", port: 5432),
            DatabaseHost(name: "::1", port: 7000), DatabaseHost(name: "fe80::2", port: 5432),
        ])
        #expect(endpoint.targetSession == .readWrite && endpoint.database == "db" && endpoint.password == "p")
        #expect(endpoint.description == "postgres://u@h1:5433,h2:5432,[::1]:7000,[fe80::2]:5432/db?target_session_attrs=read-write")
    }

    @Test func theDefaultTargetAppliesOnlyWhenTheURLNamesNone() throws {
        #expect(try DatabaseEndpoint(url: "postgres://u@a,b/db", defaultTarget: .preferStandby).targetSession == .preferStandby)
        #expect(try DatabaseEndpoint(url: "postgres://u@a,b/db?target_session_attrs=any", defaultTarget: .readWrite).targetSession == .any)
        #expect(try DatabaseEndpoint(url: "postgres://a/db").username == "postgres")
    }

    @Test(arguments: [
        "mysql://u@h/db", "postgres://u@/db", "postgres://u@h1,,h2/db", "postgres://u@h:notaport/db", "postgres://u@h:0/db",
        "postgres://u@[::1/db", "postgres://u@h:70000/db",
    ])
    func malformedURLsAreRefused(_ url: String) {
        #expect(throws: DatabaseEndpointError.self) { try DatabaseEndpoint(url: url) }
    }

    @Test func anUnknownTargetIsRefusedByName() {
        #expect(throws: DatabaseEndpointError.invalidTarget("primary-ish")) {
            try DatabaseEndpoint(url: "postgres://u@a,b/db?target_session_attrs=primary-ish")
        }
    }
}
