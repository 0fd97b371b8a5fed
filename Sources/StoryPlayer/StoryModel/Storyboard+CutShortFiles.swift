import Foundation

extension Storyboard {
    /// A local file the storyboard names that ends before its own structure says it does: a
    /// download or a copy cut short.
    public struct CutShortFile: Sendable, Equatable, CustomStringConvertible {
        /// The JSON path of the key that names it, e.g. `stories[1].items[0].uri`.
        public let path: String
        /// The file as resolved against the storyboard's folder.
        public let file: String
        /// What is missing, in the file's own terms.
        public let reason: String

        public var description: String { "\(path): \(file) is cut short (\(reason)): only what it holds is shown" }
    }

    /// The local media files (items, posters, room participants) that end early. FFmpeg shows
    /// what such a file holds and says so only in a log line: a JPEG cut off mid-picture came out
    /// half grey, and an MP4 cut off halfway ended its item at half its length, both with no
    /// word in the summary. Checked from the files' own structure, before the render: a JPEG's
    /// markers up to its end-of-image marker, an MP4's (MOV's, HEIF's) top-level boxes.
    public var cutShortLocalFiles: [CutShortFile] {
        var found: [CutShortFile] = []
        var seen: Set<String> = []
        visitNamedFiles { source, path in
            guard let source, !source.isRemote, source.refusal == nil, !seen.contains(source.location) else { return }
            seen.insert(source.location)
            if let reason = CutShortCheck.reason(forFileAt: source.location) {
                found.append(CutShortFile(path: path, file: source.location, reason: reason))
            }
        }
        return found
    }
}

/// Reads a file's own structure for whether it ends where that structure says. Only JPEG and
/// ISO base media files (MP4, MOV, HEIF) are read; anything else, or a file whose structure is
/// broken in some other way, is left to the decoder to judge (nil).
enum CutShortCheck {
    static func reason(forFileAt path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 12), head.count == 12 else { return nil }
        if head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF {
            // Read in one go (FileHandle.readToEnd grows its buffer chunk by chunk: 49 ms for a
            // 32 MB JPEG, against 5 ms) and walked in place, not copied to an array. Not mapped:
            // a file cut short while it is read would be a SIGBUS.
            guard let whole = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return nil }
            return whole.withUnsafeBytes { jpegReason($0) }
        }
        if head[4...7].elementsEqual(Array("ftyp".utf8)) {
            guard let size = try? handle.seekToEnd() else { return nil }
            return boxReason(size: size) { offset, count in
                guard (try? handle.seek(toOffset: offset)) != nil else { return nil }
                return try? handle.read(upToCount: count).map(Array.init)
            }
        }
        return nil
    }

    // MARK: - JPEG

    /// Why a JPEG ends early: its markers walked from the start (segments by their lengths, each
    /// scan's entropy-coded data to the marker after it), up to the end-of-image marker (`FFD9`).
    /// A progressive JPEG's scans and tables in between are walked the same way. Bytes after the
    /// end-of-image marker (a phone maker's trailer, a second picture) are not read.
    static func jpegReason(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { jpegReason($0) }
    }

    static func jpegReason(_ bytes: UnsafeRawBufferPointer) -> String? {
        let count = bytes.count
        var i = 2
        while i + 1 < count {
            guard bytes[i] == 0xFF else { return nil }
            let marker = bytes[i + 1]
            switch marker {
            case 0xFF:
                i += 1
                continue
            case 0xD9:
                return nil
            case 0x01, 0xD0...0xD7:
                i += 2
                continue
            default:
                break
            }
            guard i + 3 < count else { return "its \(markerName(marker)) segment is cut off" }
            let end = i + 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
            guard end <= count else { return "its \(markerName(marker)) segment is cut off" }
            i = end
            if marker == 0xDA {
                // Entropy-coded data: FF is followed by 00 (a stuffed byte) or a restart marker.
                // memchr finds each FF; the bytes between are not looked at one by one.
                while i + 1 < count {
                    guard let base = bytes.baseAddress, let found = memchr(base + i, 0xFF, count - i) else { i = count; break }
                    i = base.distance(to: UnsafeRawPointer(found))
                    if i + 1 < count, bytes[i + 1] != 0, !(0xD0...0xD7).contains(bytes[i + 1]) { break }
                    i += 1
                }
                if i + 1 >= count { return "its picture data stops before the end-of-image marker" }
            }
        }
        return "it has no end-of-image marker"
    }

    private static func markerName(_ marker: UInt8) -> String {
        marker == 0xDA ? "start-of-scan" : "FF" + String(marker, radix: 16, uppercase: true) + " marker"
    }

    // MARK: - ISO base media (MP4, MOV, HEIF)

    /// Why an ISO base media file ends early: its top-level boxes, each `size` bytes from where
    /// it starts (a 64-bit size when it says 1, the rest of the file when it says 0), must fit in
    /// the file. `read(offset, count)` gives the bytes there.
    static func boxReason(size: UInt64, read: (UInt64, Int) -> [UInt8]?) -> String? {
        var offset: UInt64 = 0
        while offset + 8 <= size {
            guard let header = read(offset, 16), header.count >= 8 else { return nil }
            var length = header[0..<4].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let type = String(decoding: header[4..<8], as: UTF8.self)
            if length == 1 {
                guard header.count == 16 else { return "its \(type) box is cut off" }
                length = header[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            }
            if length == 0 { return nil }
            guard length >= 8 else { return nil }
            let (end, overflow) = offset.addingReportingOverflow(length)
            if overflow || end > size {
                return "its \(type) box says \(length) bytes, and the file ends \(size - offset) bytes into it"
            }
            offset = end
        }
        return nil
    }
}
