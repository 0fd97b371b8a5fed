import Foundation

/// A folder of its own for one test (outputs, written inputs), removed with the last reference
/// to it, so a test leaves nothing behind in the temporary directory.
public final class ScratchFolder: Sendable {
    public let path: String

    public init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("live-stories-\(UUID().uuidString)").path
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    // MARK: - Files in it

    public func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) -> String {
        let target = file(name)
        FileManager.default.createFile(atPath: target, contents: Data(bytes))
        return target
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
