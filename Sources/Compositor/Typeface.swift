import CFreeType
import Synchronization

/// A font face, rasterized by FreeType into anti-aliased glyphs for the text the pictures carry:
/// error cards, room chips, contact-sheet labels, the lifecycle timeline.
///
/// FreeType's faces are not thread-safe, and pictures are drawn from several threads (the
/// rasterizer's bands, shards, tests), so the face lives behind a `Mutex`. Glyphs are rendered
/// once per size and kept: after its first use a string costs a dictionary look-up per character,
/// and the bitmaps handed out are immutable values, blended outside the lock.
public final class Typeface: Sendable {
    /// The file the face was read from.
    public let path: String
    private let state: Mutex<FaceHandle>

    /// Opens the face in `path` (`FT_Init_FreeType`, `FT_New_Face`).
    public init(path: String) throws(CompositorError) {
        var library: FT_Library?
        let libraryError = FT_Init_FreeType(&library)
        guard libraryError == 0, let library else {
            throw CompositorError(.font, "cannot start FreeType", cause: "FT_Init_FreeType error \(libraryError)")
        }
        var face: FT_Face?
        let faceError = FT_New_Face(library, path, 0, &face)
        guard faceError == 0, let face else {
            FT_Done_FreeType(library)
            throw CompositorError(.font, "cannot open the font \(path)", cause: "FT_New_Face error \(faceError)")
        }
        self.path = path
        state = Mutex(FaceHandle(library: library, face: face))
    }

    /// The family and style the font file names ("DejaVu Sans Bold").
    public var name: String {
        state.withLock { handle in
            let family = handle.face.pointee.family_name.map { String(cString: $0) } ?? "?"
            let style = handle.face.pointee.style_name.map { String(cString: $0) } ?? ""
            return style.isEmpty || style == "Book" || style == "Regular" ? family : "\(family) \(style)"
        }
    }

    // MARK: - Glyphs

    /// The glyphs of `text` at `size` pixels, placed along a line, with kerning where the face
    /// has a table for it. A character the face lacks is drawn as its missing-glyph box
    /// (glyph 0, `.notdef`), so a label shows that something is there.
    func line(_ text: String, size: Int) -> TextLine {
        precondition((1...1024).contains(size), "a text size is 1 to 1024 pixels, not \(size)")
        return state.withLock { handle in
            handle.select(size: size)
            var placed: [PlacedGlyph] = []
            placed.reserveCapacity(text.unicodeScalars.count)
            var pen = 0
            var previous: FT_UInt = 0
            for scalar in text.unicodeScalars {
                let index = FT_Get_Char_Index(handle.face, FT_ULong(scalar.value))
                pen += handle.kerning(previous, index)
                let glyph = handle.glyph(index, size: size)
                placed.append(PlacedGlyph(glyph: glyph, x: pen))
                pen += glyph.advance
                previous = index
            }
            return TextLine(glyphs: placed, width: pen, metrics: handle.metrics)
        }
    }
}

// MARK: - The FreeType objects

/// FreeType's library and one face of it, and the glyphs rendered so far. One owner for the two
/// because a face belongs to its library and must be done before it.
struct FaceHandle: ~Copyable {
    let library: FT_Library
    let face: FT_Face
    private var size = 0
    private var cache: [GlyphKey: Glyph] = [:]
    private(set) var metrics = TextMetrics(ascent: 0, descent: 0, lineHeight: 0)

    init(library: FT_Library, face: FT_Face) {
        self.library = library
        self.face = face
    }

    /// Sets the pixel size the next glyphs and kerning are measured at (`FT_Set_Pixel_Sizes`).
    mutating func select(size: Int) {
        guard size != self.size else { return }
        FT_Set_Pixel_Sizes(face, 0, FT_UInt(size))
        self.size = size
        let scaled = face.pointee.size.pointee.metrics
        // 26.6 fixed point, rounded outwards so a line never clips its own glyphs.
        metrics = TextMetrics(ascent: Int((scaled.ascender + 63) >> 6), descent: Int((-scaled.descender + 63) >> 6),
                              lineHeight: Int((scaled.height + 63) >> 6))
    }

    /// The horizontal kerning between two glyphs in whole pixels (`FT_Get_Kerning`, grid-fitted).
    func kerning(_ left: FT_UInt, _ right: FT_UInt) -> Int {
        guard left != 0, right != 0, story_ft_has_kerning(face) != 0 else { return 0 }
        var delta = FT_Vector()
        guard FT_Get_Kerning(face, left, right, FT_UInt(FT_KERNING_DEFAULT.rawValue), &delta) == 0 else { return 0 }
        return Int((delta.x + 32) >> 6)
    }

    /// Glyph `index` at the selected size, rendered to 8-bit coverage once (`FT_Load_Glyph` with
    /// `FT_LOAD_RENDER`) and kept.
    mutating func glyph(_ index: FT_UInt, size: Int) -> Glyph {
        let key = GlyphKey(index: index, size: size)
        if let known = cache[key] { return known }
        var rendered = Glyph(width: 0, rows: 0, left: 0, top: 0, advance: 0, coverage: [])
        if FT_Load_Glyph(face, index, story_ft_render_flags()) == 0, let slot = face.pointee.glyph {
            rendered = Glyph(slot: slot.pointee)
        }
        cache[key] = rendered
        return rendered
    }

    /// `FT_Done_Face`, then `FT_Done_FreeType`.
    deinit {
        FT_Done_Face(face)
        FT_Done_FreeType(library)
    }
}

struct GlyphKey: Hashable {
    let index: FT_UInt
    let size: Int
}
