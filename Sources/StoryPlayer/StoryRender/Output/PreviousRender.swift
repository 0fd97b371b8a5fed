import Compositor
import Foundation
import StoryBase

/// The files of an earlier render in the output folder that describe it as finished, removed
/// before this render writes its first frame.
///
/// A render into a folder that holds a finished render replaces that render's frames one by one.
/// Should it stop half-way (a full disk, a crash, `kill -9`), the folder would hold the new
/// render's first frames beside the old one's last, under the old `summary.json`, trace and
/// clip, which `report`, `merge` and a user take for a complete render. Keeping the old render
/// whole until the new one is finished would need room for both on the disk that ran out; so
/// the folder stops claiming to be complete instead: the old summary, trace and report go, and
/// so do the clips, contact sheet and timeline in the folder that this render writes again.
/// They come back, this render's, when it finishes; if it fails, `FailedRender` says what is left.
struct PreviousRender {
    /// The files that make a folder a finished render (and a compared one: `--compare-to`).
    static let describingFiles = ["summary.json", "lifecycle.jsonl", FrameRecord.fileName, ReportPage.fileName,
                                  ComparisonReport.fileName]

    /// What was removed, as paths the user gave (or the folder's files by name).
    private(set) var removed: [String] = []

    /// Removes the previous render's describing files in `folder`, and those of `outputs` that
    /// lie in it. A file that cannot be removed is an error: left, it would still describe the
    /// folder as finished.
    static func retire(in folder: String, replacing outputs: [String]) throws(RenderError) -> PreviousRender {
        var previous = PreviousRender()
        let inFolder = outputs.filter { isInside($0, folder: folder) }
        for path in describingFiles.map({ (folder as NSString).appendingPathComponent($0) }) + inFolder {
            guard FileManager.default.fileExists(atPath: path) else { continue }
            guard unlink(path) == 0 || errno == ENOENT else {
                throw RenderError(.output, "cannot replace the earlier render in \(folder)",
                                  cause: "cannot remove its \((path as NSString).lastPathComponent): "
                                      + OutputFolder.reason(errno, creating: path))
            }
            previous.removed.append(path)
        }
        return previous
    }

    /// The names of what was removed, for a message ("summary.json, lifecycle.jsonl and clip.mp4").
    var removedNames: String? {
        let names = removed.map { ($0 as NSString).lastPathComponent }
        guard let last = names.last else { return nil }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and " + last
    }

    /// Whether `path` is `folder` or below it, comparing the paths as the system resolves them.
    static func isInside(_ path: String, folder: String) -> Bool {
        let resolvedFolder = URL(fileURLWithPath: folder).standardizedFileURL.resolvingSymlinksInPath().path
        let resolvedParent = URL(fileURLWithPath: OutputFolder.folder(of: path)).standardizedFileURL.resolvingSymlinksInPath().path
        return resolvedParent == resolvedFolder || resolvedParent.hasPrefix(resolvedFolder.hasSuffix("/") ? resolvedFolder : resolvedFolder + "/")
    }
}
