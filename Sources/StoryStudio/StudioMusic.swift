import Foundation
import StoryPlayer

/// The storyboard's `music` as the page plays it while the preview plays (`studio-music.js`):
/// its file, under the storyboard's folder (served by `/files/`), or its URL, and the settings
/// the browser can follow (in-point, volume, fades, loop). Ducking is the render's.
struct StudioMusic: Encodable {
    /// The file's path under the storyboard's folder; nil for a remote one.
    let file: String?
    /// A remote file's URL; nil for a local one.
    let url: String?
    let start: Double
    let volume: Double
    let loop: Bool
    let fade_in: Double
    let fade_out: Double
    /// Whether the fade out ends the render (the storyboard has a `duration`, as the mix says).
    let fades_at_end: Bool

    /// nil without music, or for a local file outside the storyboard's folder (the page serves
    /// only that folder).
    init?(_ board: Storyboard, folder: String) {
        guard let bed = board.music else { return nil }
        let location = bed.source.location
        if bed.source.isRemote {
            (file, url) = (nil, location)
        } else {
            // Both absolute and without `..`: the storyboard may have been named by a relative path.
            let absolute = { (path: String) in URL(fileURLWithPath: path).standardizedFileURL.path }
            let root = absolute(folder.isEmpty ? "." : folder) + "/", path = absolute(location)
            guard path.hasPrefix(root) else { return nil }
            (file, url) = (String(path.dropFirst(root.count)), nil)
        }
        (start, volume, loop) = (bed.start, bed.volume, bed.loops)
        (fade_in, fade_out, fades_at_end) = (bed.fadeIn, bed.fadeOut, board.duration != nil)
    }
}
