import Foundation

/// Paths to the committed fixtures and samples. Tests read them in place (by `#filePath`), so
/// they are not bundled as resources; the fixtures are StoryPlayerTests' own folder.
public enum Fixture {
    /// This file is `Tests/Support/Fixture.swift`.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// `Tests/StoryPlayerTests`: where the fixtures are, and the folder storyboards in tests are
    /// relative to unless a test says otherwise.
    public static let testsFolder = packageRoot.appendingPathComponent("Tests/StoryPlayerTests")

    public static func path(_ name: String) -> String { testsFolder.appendingPathComponent("Fixtures/\(name)").path }
    public static func sample(_ name: String) -> String { packageRoot.appendingPathComponent("samples/\(name)").path }
}
