import Foundation
import StoryModel

// MARK: - Which sources are HEIF photos

extension HEIFPhoto {
    /// Names a web server may give a HEIF photo; a remote source is fetched for libheif only
    /// when its name says so (sniffing every URL would cost every video and live stream a
    /// request), and its brand must agree.
    static let remoteExtensions: Set<String> = ["heic", "heif", "hif", "avif"]
    /// The most a remote photo may weigh (a 48-megapixel HEIC is about 15 MB).
    static let remoteLimit = 100_000_000

    /// The photo `source` names when it is a HEIF file (told by its `ftyp` brand), open;
    /// nil when it is something else, for FFmpeg to read. Remote photos are downloaded whole
    /// through the same protocols and open timeout as any source.
    static func open(_ source: MediaSource, limits: DecodeLimits) throws(MediaError) -> HEIFPhoto? {
        guard source.refusal == nil else { return nil }
        guard source.isRemote else {
            guard let brand = HEIFBrand.read(path: source.location), brand.isHEIF else { return nil }
            return try HEIFPhoto(path: source.location, brand: brand)
        }
        guard remoteExtensions.contains(source.pathExtension), let scheme = MediaSource.scheme(of: source.location),
              ["http", "https"].contains(scheme), source.allowedProtocols(narrowedTo: limits.protocols).contains(scheme)
        else { return nil }
        let bytes = try FeedPageStream.download(source.location, timeout: limits.timeouts.open, limit: remoteLimit)
        guard let brand = bytes.withUnsafeBytes({ HEIFBrand.read($0) }), brand.isHEIF else { return nil }
        let name = URL(string: source.location)?.lastPathComponent ?? source.location
        return try HEIFPhoto(bytes: bytes, name: name, brand: brand)
    }
}
