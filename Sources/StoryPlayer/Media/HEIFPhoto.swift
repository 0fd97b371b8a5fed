import CFFmpeg
import CHEIF
import Foundation

/// A HEIC, HEIF or AVIF photo read by libheif (FFmpeg 5.1 reads none of them): owns libheif's
/// context and the primary image's handle (`heif_context_alloc` / `heif_context_free`,
/// `heif_context_get_primary_image_handle` / `heif_image_handle_release`).
///
/// libheif applies the photo's own transforms (`irot`, `imir`, `clap`) while decoding, so the
/// picture it gives is upright and its size is the size as shown.
final class HEIFPhoto {
    private var context: OpaquePointer?
    private var handle: OpaquePointer?
    let brand: HEIFBrand
    /// The size as shown: after the photo's turn, flip and crop.
    let width: Int
    let height: Int
    let hasAlpha: Bool
    /// The embedded ICC profile (`prof`/`rICC`), if the photo has one.
    let colourProfile: ColourProfile?

    /// The codec's name as FFmpeg spells it, for `probe`.
    var codecName: String { brand.isAVIF ? "av1" : "hevc" }

    // MARK: - Opening

    /// Reads the file's boxes (`heif_context_read_from_file`) and picks the primary image.
    convenience init(path: String, brand: HEIFBrand) throws(MediaError) {
        try self.init(name: (path as NSString).lastPathComponent, brand: brand) { heif_context_read_from_file($0, path, nil) }
    }

    /// Reads a photo downloaded whole (`heif_context_read_from_memory`, which copies it).
    convenience init(bytes: Data, name: String, brand: HEIFBrand) throws(MediaError) {
        try self.init(name: name, brand: brand) { context in
            bytes.withUnsafeBytes { heif_context_read_from_memory(context, $0.baseAddress, $0.count, nil) }
        }
    }

    /// Reads the boxes with `read` and picks the primary image. A sequence or a file of several
    /// images (a burst) is refused: a story shows one photo, and showing one of several would
    /// hide the others without a word.
    private init(name: String, brand: HEIFBrand, read: (OpaquePointer) -> heif_error) throws(MediaError) {
        self.brand = brand
        if brand.isSequence {
            throw MediaError(.unsupportedCodec, "\(name) is a HEIF image sequence (brand '\(brand.major)'), not a photo",
                             cause: "a story shows one photo; make it a video or pick one picture")
        }
        HEIFPhoto.loadPlugins
        guard let context = heif_context_alloc() else { fatalError("heif_context_alloc: out of memory") }
        self.context = context
        let status = read(context)
        guard status.code == heif_error_Ok else {
            throw MediaError(.open, "cannot read the HEIF photo \(name)", cause: HEIFPhoto.text(status))
        }
        let images = Int(heif_context_get_number_of_top_level_images(context))
        guard images == 1 else {
            throw MediaError(.unsupportedCodec, "\(name) holds \(images) images (a HEIF burst or sequence), not one photo",
                             cause: "a story shows one photo; export the one to show")
        }
        var primary: OpaquePointer?
        let got = heif_context_get_primary_image_handle(context, &primary)
        guard got.code == heif_error_Ok, let primary else {
            throw MediaError(.open, "no primary image in \(name)", cause: HEIFPhoto.text(got))
        }
        handle = primary
        width = Int(heif_image_handle_get_width(primary))
        height = Int(heif_image_handle_get_height(primary))
        hasAlpha = heif_image_handle_has_alpha_channel(primary) != 0
        colourProfile = HEIFPhoto.iccProfile(of: primary)
        guard width > 0, height > 0 else { throw MediaError(.decode, "\(name) has no picture size") }
    }

    deinit {
        if let handle { heif_image_handle_release(handle) }
        if let context { heif_context_free(context) }
    }

    // MARK: - Decoding

    /// The primary image, upright, as an RGB (or RGBA) frame (`heif_decode_image`), converted to
    /// sRGB when it embeds another ICC profile. A codec libheif has no decoder for (its plugin
    /// is missing) is named in the error.
    func decode(limits: DecodeLimits) throws(MediaError) -> Frame {
        guard let handle else { preconditionFailure("decoding a closed HEIF photo") }
        guard width * height <= limits.maxPixels else {
            throw MediaError(.tooLarge, "the photo is \(width)x\(height), more than \(limits.maxPixels) pixels")
        }
        let chroma = hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB
        var image: OpaquePointer?
        let decoded = heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, nil)
        guard decoded.code == heif_error_Ok, let image else {
            if heif_have_decoder_for_format(brand.isAVIF ? heif_compression_AV1 : heif_compression_HEVC) == 0 {
                throw MediaError(.unsupportedCodec, "libheif has no \(brand.isAVIF ? "AV1 (AVIF)" : "HEVC (HEIC)") decoder for this photo",
                                 cause: "its codec plugin is missing (Debian: libheif-plugin-\(brand.isAVIF ? "dav1d" : "libde265"))")
            }
            // A coding libheif has no decoder for at all (a newer codec, or a plugin not installed).
            if decoded.code == heif_error_Unsupported_feature
                && (decoded.subcode == heif_suberror_Unsupported_codec || decoded.subcode == heif_suberror_Unsupported_image_type) {
                throw MediaError(.unsupportedCodec, "libheif has no decoder for this photo's codec",
                                 cause: "its codec plugin is missing or libheif \(HEIFPhoto.version) does not know it (\(HEIFPhoto.text(decoded)))")
            }
            throw MediaError(.decode, "cannot decode the HEIF photo", cause: HEIFPhoto.text(decoded))
        }
        defer { heif_image_release(image) }
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
            throw MediaError(.decode, "libheif gave no picture")
        }
        let shownWidth = Int(heif_image_get_width(image, heif_channel_interleaved))
        let shownHeight = Int(heif_image_get_height(image, heif_channel_interleaved))
        let frame = Frame()
        guard let target = frame.pointer else { preconditionFailure("a new frame has storage") }
        target.pointee.width = Int32(shownWidth)
        target.pointee.height = Int32(shownHeight)
        target.pointee.format = (hasAlpha ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24).rawValue
        target.pointee.color_range = AVCOL_RANGE_JPEG
        let status = av_frame_get_buffer(target, 64)
        guard status >= 0 else { throw MediaError(.decode, "cannot allocate a \(shownWidth)x\(shownHeight) picture", averror: status) }
        let rowBytes = shownWidth * (hasAlpha ? 4 : 3)
        let rows = target.pointee.data.0!, targetStride = Int(target.pointee.linesize.0)
        for y in 0..<shownHeight {
            (rows + y * targetStride).update(from: plane + y * Int(stride), count: rowBytes)
        }
        if let colourProfile, !colourProfile.isSRGB {
            colourProfile.convertToSRGB(rows, width: shownWidth, height: shownHeight, stride: targetStride, hasAlpha: hasAlpha)
        }
        return frame
    }

    // MARK: - Helpers

    /// `heif_init`, once per process: a libheif built with codec plugins finds them only then.
    private static let loadPlugins: Void = { _ = heif_init(nil) }()

    /// The embedded ICC profile (`heif_image_handle_get_raw_color_profile`); nil without one
    /// (an `nclx` box only describes the matrix, which libheif applies itself).
    private static func iccProfile(of handle: OpaquePointer) -> ColourProfile? {
        let type = heif_image_handle_get_color_profile_type(handle)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return nil }
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        guard size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        guard heif_image_handle_get_raw_color_profile(handle, &bytes).code == heif_error_Ok else { return nil }
        return bytes.withUnsafeBytes { ColourProfile(icc: $0) }
    }

    /// The libheif in use (`heif_get_version`), e.g. "1.15.1".
    static var version: String { String(cString: heif_get_version()) }

    /// libheif's message for a failed call.
    private static func text(_ error: heif_error) -> String {
        error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)"
    }
}
