import Foundation

/// What a file's `ftyp` box says it is, read from its first bytes: HEIF photos (HEIC, AVIF) are
/// told from MP4 videos by content, not by extension, since phones and web servers name them
/// loosely (`.heic` AVIFs, `.jpg` HEICs).
struct HEIFBrand: Equatable, Sendable {
    /// The major brand, e.g. `heic`, `avif`, `msf1`.
    let major: String
    let compatible: [String]

    // MARK: - Brands

    /// Brands of a still HEIF image (ISO/IEC 23008-12, and AV1's `avif`).
    static let stillBrands: Set<String> = ["heic", "heix", "heim", "heis", "mif1", "mif2", "avif", "avio"]
    /// Brands of an image sequence (a burst or a moving picture), which a story does not show.
    static let sequenceBrands: Set<String> = ["msf1", "hevc", "hevx", "hevm", "hevs", "avis"]

    /// Whether libheif is the reader: a HEIF brand is major, or a still brand is listed
    /// (`mif1` is in every HEIF file) and no video brand is major.
    var isHEIF: Bool {
        HEIFBrand.stillBrands.contains(major) || HEIFBrand.sequenceBrands.contains(major)
            || compatible.contains("mif1") || compatible.contains("msf1")
    }

    /// A sequence of pictures rather than one photo: its major brand says so.
    var isSequence: Bool { HEIFBrand.sequenceBrands.contains(major) }

    /// AV1 pictures (AVIF) rather than HEVC (HEIC).
    var isAVIF: Bool { major == "avif" || major == "avis" || (!major.hasPrefix("he") && compatible.contains("avif")) }

    // MARK: - Reading

    /// The brands of a file that starts with an `ftyp` box; nil for anything else.
    static func read(_ bytes: UnsafeRawBufferPointer) -> HEIFBrand? {
        guard bytes.count >= 16, String(decoding: bytes[4..<8], as: UTF8.self) == "ftyp" else { return nil }
        let size = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard size >= 16 else { return nil }
        let end = min(size, bytes.count)
        let fourCC = { (at: Int) in String(decoding: bytes[at..<at + 4], as: UTF8.self) }
        // After the major brand comes its minor version, then the compatible brands.
        let compatible = stride(from: 16, to: end - 3, by: 4).map(fourCC)
        return HEIFBrand(major: fourCC(8), compatible: compatible)
    }

    /// The brands of a local file, read from its first 256 bytes; nil when it has none or cannot be read.
    static func read(path: String) -> HEIFBrand? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 256) else { return nil }
        return data.withUnsafeBytes { read($0) }
    }
}
