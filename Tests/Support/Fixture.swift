import Foundation

/// Paths to the committed fixtures and samples. Tests read them in place (by `#filePath`), so
/// they are not bundled as resources; every test target reaches the one `Tests/Fixtures`.
public enum Fixture {
    /// This file is `Tests/Support/Fixture.swift`.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// `Tests`: the folder storyboards in tests are relative to unless a test says otherwise, so
    /// a storyboard's `Fixtures/counter.mp4` is `Tests/Fixtures/counter.mp4`.
    public static let testsFolder = packageRoot.appendingPathComponent("Tests")

    public static func path(_ name: String) -> String { testsFolder.appendingPathComponent("Fixtures/\(name)").path }
    public static func sample(_ name: String) -> String { packageRoot.appendingPathComponent("samples/\(name)").path }
}
