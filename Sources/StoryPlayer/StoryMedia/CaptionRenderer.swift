internal import CLibass
import Compositor
import Foundation
import StoryModel

/// One captions track drawn by libass, the renderer video players use for subtitles: the owner of
/// an `ASS_Library`, its `ASS_Renderer` and the `ASS_Track` made from a ``CaptionTrack``.
///
/// libass's renderer keeps caches and is not thread-safe, so this type is not `Sendable`: one
/// render (or `still`) makes its own and uses it on its own thread; two renders never share one.
/// The fonts are DejaVu Sans, regular and bold, read from their files (no fontconfig lookup), so
/// a caption looks the same on every machine and two renders of a frame are byte-identical.
public final class CaptionRenderer {
    private let library: OpaquePointer
    // Not private: `+Box` measures what the renderer draws.
    let renderer: OpaquePointer
    let track: UnsafeMutablePointer<ASS_Track>
    /// Each cue's span in whole milliseconds, as the track holds it.
    let spans: [Range<Int64>]
    public let layout: CaptionLayout
    /// The cues' colour emoji, drawn where libass leaves their boxes; nil when they have none.
    let emoji: EmojiPlaceholders?

    /// Makes the track for `captions`, styled and placed by `layout` (`ass_library_init`,
    /// `ass_renderer_init`, `ass_read_memory` for the style, `ass_process_chunk` per cue).
    public init(_ captions: CaptionTrack, layout: CaptionLayout) throws(MediaError) {
        guard let fontFile = Typeface.fontFile(.regular) else {
            throw MediaError(.open, "cannot draw captions", cause: "no DejaVu Sans font (install fonts-dejavu-core)")
        }
        guard let library = ass_library_init() else { throw MediaError(.open, "cannot draw captions", cause: "ass_library_init failed") }
        story_ass_quiet(library)
        for weight in Typeface.Weight.allCases {
            guard let file = Typeface.fontFile(weight), let data = FileManager.default.contents(atPath: file) else { continue }
            data.withUnsafeBytes { bytes in
                ass_add_font(library, (file as NSString).lastPathComponent, bytes.baseAddress?.assumingMemoryBound(to: CChar.self),
                             Int32(bytes.count))
            }
        }
        guard let renderer = ass_renderer_init(library) else {
            ass_library_done(library)
            throw MediaError(.open, "cannot draw captions", cause: "ass_renderer_init failed")
        }
        ass_set_frame_size(renderer, Int32(layout.width), Int32(layout.height))
        ass_set_storage_size(renderer, Int32(layout.width), Int32(layout.height))
        ass_set_fonts(renderer, fontFile, "DejaVu Sans", Int32(ASS_FONTPROVIDER_NONE.rawValue), nil, 0)
        var header = Array(CaptionRenderer.script(layout).utf8CString)
        let made = header.withUnsafeMutableBufferPointer { buffer in
            ass_read_memory(library, buffer.baseAddress, buffer.count - 1, nil)
        }
        guard let track = made else {
            ass_renderer_done(renderer)
            ass_library_done(library)
            throw MediaError(.open, "cannot draw captions", cause: "libass refused the captions' style")
        }
        var spans: [Range<Int64>] = []
        var emoji = CaptionRenderer.emojiPlaceholders(for: captions.cues.map(\.runs), lineHeight: layout.fontSize.rounded())
        for (index, cue) in captions.cues.enumerated() {
            let start = CaptionRenderer.milliseconds(cue.start), end = CaptionRenderer.milliseconds(cue.end)
            guard end > start else { continue }
            var event = Array("\(index),0,Caption,,0,0,0,,\(CaptionRenderer.assText(cue.runs, emoji: &emoji))".utf8CString)
            event.withUnsafeMutableBufferPointer { buffer in
                ass_process_chunk(track, buffer.baseAddress, Int32(buffer.count - 1), start, end - start)
            }
            spans.append(start..<end)
        }
        self.library = library
        self.renderer = renderer
        self.track = track
        self.spans = spans
        self.layout = layout
        self.emoji = emoji
    }

    deinit {
        ass_free_track(track)
        ass_renderer_done(renderer)
        ass_library_done(library)
    }

    /// Whether a cue shows at `seconds` of media time (each cue from its start until just before
    /// its end, to the millisecond, as libass decides).
    public func isShowing(at seconds: Double) -> Bool {
        let now = CaptionRenderer.milliseconds(seconds)
        return spans.contains { $0.contains(now) }
    }

    /// Draws the cues showing at `seconds` of media time onto `picture` (the canvas's size):
    /// `ass_render_frame`, then each returned coverage bitmap blended in its colour, or, for an
    /// emoji's placeholder, the emoji's picture in its box. Returns
    /// whether anything was drawn.
    @discardableResult
    public func draw(on picture: inout RGBAImage, at seconds: Double) -> Bool {
        precondition(picture.width == layout.width && picture.height == layout.height, "captions laid out for another size")
        guard isShowing(at: seconds) else { return false }
        var change: Int32 = 0
        var image = ass_render_frame(renderer, track, CaptionRenderer.milliseconds(seconds), &change)
        var drew = false
        while let part = image?.pointee {
            image = part.next
            guard let bitmap = part.bitmap, part.w > 0, part.h > 0 else { continue }
            if let set = emoji?.emoji(for: part) {
                if let centre = EmojiPlaceholders.centre(of: part, emoji: set, frameWidth: layout.width, frameHeight: layout.height) {
                    picture.draw(set.sprite, at: SpritePlacement(centreX: centre.x, centreY: centre.y))
                }
                drew = true
                continue
            }
            // libass's colour is RGBA with the alpha inverted (0 is opaque).
            let color = RGBAColor(red: UInt8(part.color >> 24), green: UInt8(part.color >> 16 & 0xFF),
                                  blue: UInt8(part.color >> 8 & 0xFF), alpha: 255 - UInt8(part.color & 0xFF))
            picture.blend(mask: UnsafePointer(bitmap), width: Int(part.w), height: Int(part.h), stride: Int(part.stride),
                          x: Int(part.dst_x), y: Int(part.dst_y), color: color)
            drew = true
        }
        return drew
    }

    /// libass's version as loaded (`ass_library_version`), e.g. "0.17.1": the number's hex digits
    /// are the version's decimal ones (0x01701000 is 0 · 17 · 01 · build 000).
    public static var version: String {
        let digits = String(UInt32(bitPattern: ass_library_version()), radix: 16)
        let padded = String(repeating: "0", count: max(0, 8 - digits.count)) + digits
        let parts = [padded.prefix(1), padded.dropFirst(1).prefix(2), padded.dropFirst(3).prefix(2)].map { Int($0) ?? 0 }
        return parts.map(String.init).joined(separator: ".")
    }

    /// Media seconds as libass's whole milliseconds, to the nearest: frame times (n / fps) are
    /// not exact in binary, and a cue starting on a frame's time must show on that frame.
    static func milliseconds(_ seconds: Double) -> Int64 {
        Int64((seconds * 1000).rounded())
    }
}
