/// Reads the EXIF Orientation tag from a photo's bytes without decoding it: what the preload
/// window's probe needs to give a phone photo's size as shown (a decoded picture carries the
/// orientation itself, from FFmpeg).
///
/// The bytes are a file from anywhere, so nothing in them is trusted: every offset and count is
/// checked against the end before it is read, each step moves forward, and anything unexpected
/// ends the search with nil. It reads a JPEG's APP1 "Exif" segment, a WebP's "EXIF" chunk and a
/// PNG's "eXIf" chunk, then IFD0 of the TIFF header inside (either byte order) for tag 0x0112.
enum EXIFOrientation {
    /// The orientation the bytes' EXIF names; nil without a valid one.
    static func read(_ bytes: UnsafeRawBufferPointer) -> PictureOrientation? {
        let file = Bytes(bytes)
        if file.u16(at: 0, bigEndian: true) == 0xFFD8 { return jpeg(file) }
        if file.matches("RIFF", at: 0), file.matches("WEBP", at: 8) { return webp(file) }
        if file.byte(at: 0) == 0x89, file.matches("PNG\r\n\u{1A}\n", at: 1) { return png(file) }
        return nil
    }

    static func read(_ bytes: [UInt8]) -> PictureOrientation? {
        bytes.withUnsafeBytes { read($0) }
    }

    // MARK: - Containers

    /// The JPEG's segments up to the first scan: the APP1 that starts with "Exif\0\0".
    private static func jpeg(_ file: Bytes) -> PictureOrientation? {
        var at = 2
        while let marker = file.byte(at: at + 1), file.byte(at: at) == 0xFF {
            switch marker {
            case 0xFF: at += 1 // fill byte
            case 0x01, 0xD0...0xD7: at += 2 // markers without a length
            case 0xD9, 0xDA: return nil // end of image, start of scan: no EXIF before the pixels
            default:
                guard let length = file.u16(at: at + 2, bigEndian: true), length >= 2 else { return nil }
                let start = at + 4, end = at + 2 + Int(length)
                if marker == 0xE1, file.matches("Exif\0\0", at: start) {
                    return tiff(file.slice(start + 6, end))
                }
                at = end
            }
        }
        return nil
    }

    /// The WebP's chunks (each a four-letter name, a little-endian size, the data padded to an
    /// even length): the "EXIF" one, with or without the "Exif\0\0" prefix.
    private static func webp(_ file: Bytes) -> PictureOrientation? {
        var at = 12
        while let size = file.u32(at: at + 4, bigEndian: false) {
            let start = at + 8
            guard Int(size) <= file.count - start else { return nil }
            let end = start + Int(size)
            if file.matches("EXIF", at: at) {
                return tiff(file.slice(file.matches("Exif\0\0", at: start) ? start + 6 : start, end))
            }
            at = end + Int(size & 1)
        }
        return nil
    }

    /// The PNG's chunks (each a big-endian length, a four-letter type, the data, a CRC) up to
    /// IEND: the "eXIf" one (PNG 1.2's extension; before or after the pixels, as writers put
    /// it), with or without the "Exif\0\0" prefix some writers copy from JPEG.
    private static func png(_ file: Bytes) -> PictureOrientation? {
        var at = 8
        while let length = file.u32(at: at, bigEndian: true) {
            let start = at + 8
            guard Int(length) <= file.count - start else { return nil }
            let end = start + Int(length)
            if file.matches("eXIf", at: at + 4) {
                return tiff(file.slice(file.matches("Exif\0\0", at: start) ? start + 6 : start, end))
            }
            if file.matches("IEND", at: at + 4) { return nil }
            at = end + 4
        }
        return nil
    }

    // MARK: - TIFF

    /// IFD0's Orientation (tag 0x0112, one SHORT) in a TIFF header.
    private static func tiff(_ tiff: Bytes) -> PictureOrientation? {
        let bigEndian: Bool
        if tiff.matches("MM", at: 0) { bigEndian = true } else if tiff.matches("II", at: 0) { bigEndian = false } else { return nil }
        guard tiff.u16(at: 2, bigEndian: bigEndian) == 42, let ifd = tiff.u32(at: 4, bigEndian: bigEndian),
              let entries = tiff.u16(at: Int(ifd), bigEndian: bigEndian) else { return nil }
        for index in 0..<Int(entries) {
            let entry = Int(ifd) + 2 + index * 12
            guard let tag = tiff.u16(at: entry, bigEndian: bigEndian) else { return nil }
            guard tag == 0x0112 else { continue }
            // SHORT, count 1: the value is the first two bytes of the value field.
            guard tiff.u16(at: entry + 2, bigEndian: bigEndian) == 3, tiff.u32(at: entry + 4, bigEndian: bigEndian) == 1,
                  let value = tiff.u16(at: entry + 8, bigEndian: bigEndian) else { return nil }
            return PictureOrientation(exif: Int(value))
        }
        return nil
    }
}

// MARK: - Reading bytes within bounds

extension EXIFOrientation {
    /// A window of the file; every read is checked against its end and gives nil past it.
    private struct Bytes {
        let base: UnsafeRawBufferPointer
        let start: Int
        let count: Int

        init(_ base: UnsafeRawBufferPointer) {
            self.base = base
            start = 0
            count = base.count
        }

        private init(_ base: UnsafeRawBufferPointer, start: Int, count: Int) {
            self.base = base
            self.start = start
            self.count = count
        }

        /// Bytes `from..<to` of this window, clamped to it.
        func slice(_ from: Int, _ to: Int) -> Bytes {
            let lower = min(max(0, from), count), upper = min(max(lower, to), count)
            return Bytes(base, start: start + lower, count: upper - lower)
        }

        func byte(at offset: Int) -> UInt8? {
            offset >= 0 && offset < count ? base[start + offset] : nil
        }

        func u16(at offset: Int, bigEndian: Bool) -> UInt16? {
            guard let a = byte(at: offset), let b = byte(at: offset + 1) else { return nil }
            return bigEndian ? UInt16(a) << 8 | UInt16(b) : UInt16(b) << 8 | UInt16(a)
        }

        func u32(at offset: Int, bigEndian: Bool) -> UInt32? {
            guard let high = u16(at: offset + (bigEndian ? 0 : 2), bigEndian: bigEndian),
                  let low = u16(at: offset + (bigEndian ? 2 : 0), bigEndian: bigEndian) else { return nil }
            return UInt32(high) << 16 | UInt32(low)
        }

        func matches(_ text: StaticString, at offset: Int) -> Bool {
            let length = text.utf8CodeUnitCount
            guard offset >= 0, length <= count - offset else { return false }
            return (0..<length).allSatisfy { base[start + offset + $0] == text.utf8Start[$0] }
        }
    }
}
