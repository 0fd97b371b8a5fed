import Compositor
import StoryMedia
import StoryModel

/// What a recorded item of sound only (a voice note, a song: `MediaDecoder.isSoundOnly`) shows
/// while its sound plays, chosen by its decode thread once the source is open: the poster the
/// storyboard gives it (the item's, else its story's), sharp, as a photo item is shown; else the
/// file's own cover art; else a still card (`SoundCardPicture`: the story's id and a sound
/// mark). A story of a voice note was a failed story ("no video stream"); a phone plays it over
/// a picture, and so does this.
package struct SoundOnlyStill: Sendable {
    /// Which picture was shown, for the trace (`firstFrame`'s `detail`).
    package enum Choice: String, Sendable {
        case poster, coverArt, card

        /// How the trace says it: "sound only: shown over the story's poster".
        package var detail: String {
            switch self {
            case .poster: "sound only: shown over the story's poster"
            case .coverArt: "sound only: shown over the file's cover art"
            case .card: "sound only: shown over a still card"
            }
        }
    }

    /// The picture, decoded (converted on the convert thread as any picture is) or drawn.
    enum Picture {
        case decoded(DecodedPicture, firstPacketAt: UInt64?)
        case drawn(RGBAImage)
    }

    /// The item's poster, else its story's; nil when the storyboard gives none.
    let poster: MediaSource?
    /// The card's text: the story's id, as an error card names it.
    let title: String

    package init(poster: MediaSource?, title: String) {
        self.poster = poster
        self.title = title
    }

    /// The picture to show over `decoder`'s sound, and which it is. A poster or cover art that
    /// cannot be decoded gives way to the next choice: the sound still plays.
    func picture(over decoder: MediaDecoder, limits: DecodeLimits, width: Int, height: Int) -> (Choice, Picture) {
        if let poster, let picture = SoundOnlyStill.firstPicture(of: poster, limits: limits) {
            return (.poster, .decoded(picture, firstPacketAt: nil))
        }
        if decoder.hasCoverArt, let picture = try? decoder.nextPicture() {
            return (.coverArt, .decoded(picture, firstPacketAt: decoder.firstPacketAt))
        }
        return (.card, .drawn(SoundCardPicture.render(width: width, height: height, title: title)))
    }

    /// A poster's picture, read as `PosterLibrary` reads posters: a local one through `file`
    /// whatever the storyboard's `protocols` say.
    private static func firstPicture(of poster: MediaSource, limits: DecodeLimits) -> DecodedPicture? {
        var posterLimits = limits
        if !poster.isRemote { posterLimits.protocols = nil }
        guard let decoder = try? MediaDecoder(source: poster, limits: posterLimits) else { return nil }
        // The picture's buffers are reference-counted: it outlives its decoder.
        defer { decoder.close() }
        return try? decoder.firstPicture()
    }
}
