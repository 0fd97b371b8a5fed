import Compositor
import StoryModel

/// Loads single pictures (posters) through FFmpeg. Posters are images, not players: they are
/// loaded once, before playback, and are not subject to create-on-play.
package enum PictureLoader {
    /// The first picture of `source`, covering `width`×`height`.
    package static func load(_ source: MediaSource, width: Int, height: Int, limits: DecodeLimits) throws(MediaError) -> RGBAImage {
        if source.trim != nil { return try load(source, at: 0, width: width, height: height, limits: limits) }
        let decoder = try MediaDecoder(source: source, limits: limits)
        defer { decoder.close() }
        guard let picture = try decoder.firstPicture() else {
            throw MediaError(.decode, "no picture in \(source)")
        }
        return try decoder.rgba(picture, width: width, height: height)
    }

    /// The picture at media time `seconds`: the last one whose time is ≤ `seconds`, as `fit`
    /// shows it on the screen.
    package static func load(_ source: MediaSource, at seconds: Double, width: Int, height: Int, fit: PictureFit = .cover,
                     limits: DecodeLimits) throws(MediaError) -> RGBAImage {
        let decoder = try MediaDecoder(source: source, limits: limits)
        defer { decoder.close() }
        if (seconds > 0 || decoder.startsMidFile) && !decoder.isStill { try decoder.seek(to: seconds) }
        var chosen: DecodedPicture?
        while let picture = try decoder.nextPicture() {
            if chosen != nil && picture.time > seconds + 1e-9 { break }
            chosen = picture
            if decoder.isStill { break }
        }
        guard let chosen else { throw MediaError(.decode, "no picture in \(source)") }
        return try decoder.rgba(chosen, fit: fit, width: width, height: height)
    }
}
