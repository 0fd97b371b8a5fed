import Foundation

/// The files the studio serves: only from under a folder it was given (the storyboard's, the
/// render's output), and only files truly inside it. A `..` component, an absolute path, or a
/// symbolic link whose target lies outside is refused (403), whatever the URL's encoding.
struct StudioFiles: Sendable {
    let root: String

    enum Answer: Equatable {
        case file(String)
        case refused(String)
        case missing
    }

    /// The file `relative` (the URL path after the route's prefix, still percent-encoded).
    func resolve(_ relative: Substring) -> Answer {
        guard let decoded = String(relative).removingPercentEncoding else { return .refused("the path is not valid") }
        if decoded.hasPrefix("/") || decoded.hasPrefix("~") { return .refused("absolute paths are not served") }
        let components = decoded.split(separator: "/", omittingEmptySubsequences: false)
        if components.contains(where: { $0 == ".." || $0 == "." }) { return .refused("paths with .. are not served") }
        if decoded.contains("\0") || decoded.contains("\\") { return .refused("the path is not valid") }
        guard let realRoot = StudioFiles.realPath(root) else { return .missing }
        let candidate = (root as NSString).appendingPathComponent(decoded)
        guard let real = StudioFiles.realPath(candidate) else { return .missing }
        // After every link is followed, the file must still be inside the folder.
        guard real.hasPrefix(realRoot.hasSuffix("/") ? realRoot : realRoot + "/") else {
            return .refused("that file is outside the folders this studio serves")
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real, isDirectory: &isFolder), !isFolder.boolValue else { return .missing }
        return .file(real)
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The content type of a served file, by its extension.
    static func contentType(_ path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "html": "text/html; charset=utf-8"
        case "json", "jsonl": "application/json"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        case "webp": "image/webp"
        case "mp4", "m4v": "video/mp4"
        case "svg": "image/svg+xml"
        default: "application/octet-stream"
        }
    }
}
