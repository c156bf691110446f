import DBus
import Foundation
import TestSupport
import Testing

/// All tests that talk to a real `dbus-daemon`, run one at a time so that the leak tests
/// can count file descriptors and threads.
@Suite(.serialized) struct LiveBusTests {}

/// A private bus with two connections on it: one serving, one calling.
struct LiveBus: Sendable {
    let bus: PrivateBus
    let server: DBusConnection
    let client: DBusConnection
}

/// Starts a private bus, connects a server and a client, runs `body`, and tears everything down.
func withLiveBus(denyRules: [String] = [], _ body: (LiveBus) async throws -> Void) async throws {
    try await withPrivateBus(denyRules: denyRules) { bus in
        let server = try DBusConnection(address: bus.address)
        defer { server.close() }
        let client = try DBusConnection(address: bus.address)
        defer { client.close() }
        try await body(LiveBus(bus: bus, server: server, client: client))
    }
}

/// Waits for the next element of `stream`, giving up after `timeout`.
func nextElement<Element: Sendable>(
    of stream: AsyncStream<Element>, within timeout: Duration = TestTime.scaled(.seconds(5))
) async -> Element? {
    await withTaskGroup(of: Element?.self) { group in
        group.addTask {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Expects `body` to throw a ``DBusError`` with `code`; returns it for further checks.
@discardableResult
func expectDBusError(
    _ code: DBusError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async -> DBusError? {
    do {
        try await body()
        Issue.record("Expected a DBusError with code \(code), but nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as DBusError {
        #expect(error.code == code, "got \(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("Expected a DBusError with code \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Names used by the live tests, validated once.
enum TestNames {
    static func path(_ text: String) -> ObjectPath {
        (try? ObjectPath(text)) ?? ObjectPath.root
    }
    static func interface(_ text: String) throws -> InterfaceName { try InterfaceName(text) }
    static func member(_ text: String) throws -> MemberName { try MemberName(text) }
}
