import Foundation
import XCTest

/// The programs tests run: the `render-stories` under test and the independent tools they make
/// media with or compare against (ffmpeg, ImageMagick, exiftool, libheif's and Little CMS's
/// tools). One place for both, so every test target finds them the same way.
public enum TestPrograms {
    /// The `render-stories` SwiftPM built beside this test bundle (in the products folder, or the
    /// one above it for a bundle in a folder of its own), else the debug build's.
    public static var renderStories: String {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [products, products.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("render-stories").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return Fixture.packageRoot.appendingPathComponent(".build/debug/render-stories").path
    }

    /// The installed program's path. Missing, the test is skipped on a developer's machine and
    /// fails under `CI=true` (`make test` installs them all). `convert` must be ImageMagick's:
    /// only it knows `-auto-orient`, which the orientation tests compare with.
    public static func tool(_ name: String) throws -> String {
        guard let path = LiveServers.which(name) else {
            throw LiveServers.unavailable("\(name) is not installed (make test installs it)")
        }
        if name == "convert" {
            let version = String(decoding: (try? ExternalProgram.run(path, ["-version"])) ?? Data(), as: UTF8.self)
            guard version.contains("Version: ImageMagick") else {
                throw LiveServers.unavailable("ImageMagick is not installed (make test installs it)")
            }
        }
        return path
    }
}
