internal import CFFmpeg
internal import CHEIF
import Foundation

/// A HEIC, HEIF or AVIF photo read by libheif (FFmpeg 5.1 reads none of them): owns libheif's
/// context and the primary image's handle (`heif_context_alloc` / `heif_context_free`,
/// `heif_context_get_primary_image_handle` / `heif_image_handle_release`).
///
/// libheif applies the photo's own transforms (`irot`, `imir`, `clap`) while decoding, so the
/// picture it gives is upright and its size is the size as shown.
final class HEIFPhoto {
    /// libheif's functions (`HEIFLibrary`): the library is opened by the first photo.
    private let heif: story_heif_functions
    private var context: OpaquePointer?
    private var handle: OpaquePointer?
    let brand: HEIFBrand
    /// The size as shown: after the photo's turn, flip and crop.
    let width: Int
    let height: Int
    let hasAlpha: Bool
    /// The embedded ICC profile (`prof`/`rICC`), if the photo has one.
    let colourProfile: ColourProfile?
    /// The colour its `nclx` box names (H.273 codes), if it has one: cameras' and Android
    /// phones' HEIFs say their primaries and transfer (BT.2020 and PQ or HLG for an HDR `.hif`)
    /// this way instead of with an ICC profile.
    let colourTags: ColourTags?
    /// The profile the `nclx` primaries make (Display P3, BT.2020) when there is no ICC profile.
    private let primariesProfile: ColourProfile?

    /// The colour a HEIF's `nclx` box names, in H.273 codes (which FFmpeg's `AVColor*` share).
    struct ColourTags: Equatable {
        var primaries: Int, transfer: Int, matrix: Int, fullRange: Bool

        /// libheif's defaults where a photo says nothing: BT.601's matrix, full range.
        static let unstated = ColourTags(primaries: 2, transfer: 2, matrix: 6, fullRange: true)

        /// As `probe` reports it: FFmpeg's names, HDR when the transfer is PQ or HLG.
        var videoColour: VideoColour {
            VideoColour(AVColorTransferCharacteristic(rawValue: UInt32(transfer)), AVColorPrimaries(rawValue: UInt32(primaries)))
        }
    }

    /// The codec's name as FFmpeg spells it, for `probe`.
    var codecName: String { brand.isAVIF ? "av1" : "hevc" }

    // MARK: - Opening

    /// Reads the file's boxes (`heif_context_read_from_file`) and picks the primary image.
    convenience init(path: String, brand: HEIFBrand) throws(MediaError) {
        try self.init(name: (path as NSString).lastPathComponent, brand: brand) { heif, context in
            heif.context_read_from_file(context, path, nil)
        }
    }

    /// Reads a photo downloaded whole (`heif_context_read_from_memory`, which copies it).
    convenience init(bytes: Data, name: String, brand: HEIFBrand) throws(MediaError) {
        try self.init(name: name, brand: brand) { heif, context in
            bytes.withUnsafeBytes { heif.context_read_from_memory(context, $0.baseAddress, $0.count, nil) }
        }
    }

    /// Reads the boxes with `read` and picks the primary image. A sequence or a file of several
    /// images (a burst) is refused: a story shows one photo, and showing one of several would
    /// hide the others without a word.
    private init(name: String, brand: HEIFBrand, read: (story_heif_functions, OpaquePointer) -> heif_error) throws(MediaError) {
        self.brand = brand
        if brand.isSequence {
            throw MediaError(.unsupportedCodec, "\(name) is a HEIF image sequence (brand '\(brand.major)'), not a photo",
                             cause: "a story shows one photo; make it a video or pick one picture")
        }
        let heif = try HEIFLibrary.loaded()
        self.heif = heif
        guard let context = heif.context_alloc() else { fatalError("heif_context_alloc: out of memory") }
        // Until every property is set, a throw runs no deinit: what is allocated here is freed
        // here unless it is handed over at the end.
        var primary: OpaquePointer?
        var handedOver = false
        defer {
            if !handedOver {
                if let primary { heif.image_handle_release(primary) }
                heif.context_free(context)
            }
        }
        if let injected = FFmpegFaults.injected(.readHEIF) {
            throw MediaError(.open, "cannot read the HEIF photo \(name)", averror: injected)
        }
        let status = read(heif, context)
        guard status.code == heif_error_Ok else {
            throw MediaError(.open, "cannot read the HEIF photo \(name)", cause: HEIFPhoto.text(status))
        }
        let images = Int(heif.context_get_number_of_top_level_images(context))
        guard images == 1 else {
            throw MediaError(.unsupportedCodec, "\(name) holds \(images) images (a HEIF burst or sequence), not one photo",
                             cause: "a story shows one photo; export the one to show")
        }
        let got = heif.context_get_primary_image_handle(context, &primary)
        guard got.code == heif_error_Ok, let primary else {
            throw MediaError(.open, "no primary image in \(name)", cause: HEIFPhoto.text(got))
        }
        width = Int(heif.image_handle_get_width(primary))
        height = Int(heif.image_handle_get_height(primary))
        guard width > 0, height > 0 else { throw MediaError(.decode, "\(name) has no picture size") }
        hasAlpha = heif.image_handle_has_alpha_channel(primary) != 0
        colourProfile = HEIFPhoto.iccProfile(of: primary, heif: heif)
        colourTags = HEIFPhoto.colourTags(of: primary, heif: heif)
        primariesProfile = colourProfile == nil ? colourTags.flatMap { ColourProfile(h273Primaries: $0.primaries) } : nil
        self.context = context
        handle = primary
        handedOver = true
    }

    deinit {
        if let handle { heif.image_handle_release(handle) }
        if let context { heif.context_free(context) }
    }

    // MARK: - Decoding

    /// The primary image, upright (`heif_decode_image`), converted to sRGB when it embeds
    /// another ICC profile or its `nclx` names wider primaries. A codec libheif has no decoder
    /// for (its plugin is missing) is named in the error.
    ///
    /// An opaque photo of 8, 10 or 12 bits comes as libheif decodes it, in YCbCr planes tagged
    /// with its colour, for swscale to convert while it scales, as a video's pictures are:
    /// libheif's own conversion to RGB took a quarter of a 12-megapixel HEIC's time, and keeps
    /// no transfer. An HDR photo (PQ or HLG) is left tagged for the converter's tone mapper, as
    /// an HDR video's pictures are. Others (alpha, RGB-coded) are converted to 8-bit RGB by libheif.
    func decode(limits: DecodeLimits) throws(MediaError) -> Frame {
        guard handle != nil else { preconditionFailure("decoding a closed HEIF photo") }
        guard width * height <= limits.maxPixels else {
            throw MediaError(.tooLarge, "the photo is \(width)x\(height), more than \(limits.maxPixels) pixels")
        }
        // Not for an HDR photo: the profile's curve is sRGB's, and a PQ or HLG signal that
        // falls to libheif's RGB (alpha, RGB coding) would be shown through it as SDR.
        let isHDR = colourTags?.videoColour.isHDR ?? false
        let colourProfile = self.colourProfile ?? (isHDR ? nil : primariesProfile)
        if !hasAlpha, let planes = try decodePlanes() {
            // The tone mapper maps the primaries too.
            if HDRToneMapper.isHDR(planes.colourTransfer) { return planes }
            guard let colourProfile, !colourProfile.isSRGB else { return planes }
            return try planes.convertedToSRGB(from: colourProfile)
        }
        let image = try decodeImage(heif_colorspace_RGB, hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB)
        defer { heif.image_release(image) }
        let frame = try HEIFPhoto.frame(of: image, heif: heif, format: hasAlpha ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24,
                                        planes: [(heif_channel_interleaved, hasAlpha ? 4 : 3, false)])
        if let colourProfile, !colourProfile.isSRGB, let (rows, stride) = frame.plane(0) {
            colourProfile.convertToSRGB(rows, width: Int(frame.width), height: Int(frame.height), stride: stride, hasAlpha: hasAlpha)
        }
        return frame
    }

    /// The picture in YCbCr 4:2:0 planes (as phones code them; libheif 1.15 cannot say which
    /// chroma a picture has before decoding it), at its own depth (8, 10 or 12 bits, the deeper
    /// ones in 16-bit little-endian samples as FFmpeg's `yuv420p10le` has them), tagged with its
    /// `nclx` colour (or libheif's defaults: BT.601, full range); nil when it is not YCbCr of
    /// those depths.
    private func decodePlanes() throws(MediaError) -> Frame? {
        guard let handle else { return nil }
        let depth = Int(heif.image_handle_get_luma_bits_per_pixel(handle))
        guard [8, 10, 12].contains(depth) else { return nil }
        let image = try decodeImage(heif_colorspace_YCbCr, heif_chroma_420)
        defer { heif.image_release(image) }
        guard heif.image_get_colorspace(image) == heif_colorspace_YCbCr,
              heif.image_get_bits_per_pixel_range(image, heif_channel_Y) == depth,
              heif.image_get_bits_per_pixel_range(image, heif_channel_Cb) == depth else { return nil }
        let tags = colourTags(of: image)
        // RGB coded as is (lossless, 0) and matrices swscale does not know go libheif's way.
        guard HEIFPhoto.scalerMatrices.contains(tags.matrix) else { return nil }
        guard let (format, halfHeight) = HEIFPhoto.planarFormat(heif.image_get_chroma_format(image), depth: depth) else { return nil }
        let bytes = depth > 8 ? 2 : 1
        let frame = try HEIFPhoto.frame(of: image, heif: heif, format: format, planes: [(heif_channel_Y, bytes, false),
                                                                            (heif_channel_Cb, bytes, halfHeight),
                                                                            (heif_channel_Cr, bytes, halfHeight)])
        frame.colourSpace = AVColorSpace(rawValue: UInt32(tags.matrix))
        frame.colourRange = tags.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        frame.colourTransfer = AVColorTransferCharacteristic(rawValue: UInt32(tags.transfer))
        frame.colourPrimaries = AVColorPrimaries(rawValue: UInt32(tags.primaries))
        return frame
    }

    /// FFmpeg's planar format for libheif's chroma at `depth` bits, and whether its chroma
    /// planes have half the rows; nil for a chroma or depth it has none for.
    private static func planarFormat(_ chroma: heif_chroma, depth: Int) -> (AVPixelFormat, halfHeight: Bool)? {
        let formats: [Int: (AVPixelFormat, AVPixelFormat, AVPixelFormat)] = [
            8: (AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV444P),
            10: (AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_YUV422P10LE, AV_PIX_FMT_YUV444P10LE),
            12: (AV_PIX_FMT_YUV420P12LE, AV_PIX_FMT_YUV422P12LE, AV_PIX_FMT_YUV444P12LE),
        ]
        guard let (yuv420, yuv422, yuv444) = formats[depth] else { return nil }
        switch chroma {
        case heif_chroma_420: return (yuv420, true)
        case heif_chroma_422: return (yuv422, false)
        case heif_chroma_444: return (yuv444, false)
        default: return nil
        }
    }

    /// H.273 matrices swscale converts with (`ColourMatrix`): BT.709, FCC, BT.470BG, SMPTE 170M,
    /// SMPTE 240M, BT.2020.
    private static let scalerMatrices: Set<Int> = [1, 4, 5, 6, 7, 9, 10]

    /// The colour the picture was coded with: the decoder's, else the file's `nclx` box, else
    /// libheif's defaults (BT.601, full range). An "unspecified" matrix (2) is BT.601 too, as
    /// libheif takes it, not the size guess videos get.
    private func colourTags(of image: OpaquePointer) -> ColourTags {
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        if heif.image_get_nclx_color_profile(image, &nclx).code != heif_error_Ok || nclx == nil {
            nclx = nil
            return colourTags ?? .unstated
        }
        guard let nclx else { return .unstated }
        defer { heif.nclx_color_profile_free(nclx) }
        return HEIFPhoto.tags(nclx.pointee)
    }

    /// The handle's `nclx` box (`heif_image_handle_get_nclx_color_profile`); nil without one.
    private static func colourTags(of handle: OpaquePointer, heif: story_heif_functions) -> ColourTags? {
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        guard heif.image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok, let nclx else { return nil }
        defer { heif.nclx_color_profile_free(nclx) }
        return tags(nclx.pointee)
    }

    private static func tags(_ nclx: heif_color_profile_nclx) -> ColourTags {
        let matrix = Int(nclx.matrix_coefficients.rawValue)
        return ColourTags(primaries: Int(nclx.color_primaries.rawValue), transfer: Int(nclx.transfer_characteristics.rawValue),
                          matrix: matrix == 2 ? 6 : matrix, fullRange: nclx.full_range_flag != 0)
    }

    /// `heif_decode_image` into `colourspace` and `chroma`, with the errors named.
    private func decodeImage(_ colourspace: heif_colorspace, _ chroma: heif_chroma) throws(MediaError) -> OpaquePointer {
        guard let handle else { preconditionFailure("decoding a closed HEIF photo") }
        if let injected = FFmpegFaults.injected(.decodeHEIF) {
            throw MediaError(.decode, "cannot decode the HEIF photo", averror: injected)
        }
        var image: OpaquePointer?
        let decoded = heif.decode_image(handle, &image, colourspace, chroma, nil)
        guard decoded.code == heif_error_Ok, let image else {
            if heif.have_decoder_for_format(brand.isAVIF ? heif_compression_AV1 : heif_compression_HEVC) == 0 {
                throw MediaError(.unsupportedCodec, "libheif has no \(brand.isAVIF ? "AV1 (AVIF)" : "HEVC (HEIC)") decoder for this photo",
                                 cause: "its codec plugin is missing (Debian: libheif-plugin-\(brand.isAVIF ? "dav1d" : "libde265"))")
            }
            // A coding libheif has no decoder for at all (a newer codec, or a plugin not installed).
            if decoded.code == heif_error_Unsupported_feature
                && (decoded.subcode == heif_suberror_Unsupported_codec || decoded.subcode == heif_suberror_Unsupported_image_type) {
                throw MediaError(.unsupportedCodec, "libheif has no decoder for this photo's codec",
                                 cause: "its codec plugin is missing or libheif \(HEIFLibrary.version) does not know it (\(HEIFPhoto.text(decoded)))")
            }
            throw MediaError(.decode, "cannot decode the HEIF photo", cause: HEIFPhoto.text(decoded))
        }
        return image
    }

    /// A frame of `format` holding a copy of `planes` of `image` (channel, bytes per pixel,
    /// whether the plane has half the rows), each plane its own width as libheif gives it.
    private static func frame(of image: OpaquePointer, heif: story_heif_functions, format: AVPixelFormat,
                              planes: [(channel: heif_channel, bytesPerPixel: Int, halfHeight: Bool)]) throws(MediaError) -> Frame {
        let width = heif.image_get_width(image, planes[0].channel), height = heif.image_get_height(image, planes[0].channel)
        let frame = Frame()
        let status = frame.allocatePicture(width: width, height: height, format: format)
        guard status >= 0 else { throw MediaError(.decode, "cannot allocate a \(width)x\(height) picture", averror: status) }
        frame.colourRange = AVCOL_RANGE_JPEG
        for (index, plane) in planes.enumerated() {
            var stride: Int32 = 0
            guard let source = heif.image_get_plane_readonly(image, plane.channel, &stride), let (rows, targetStride) = frame.plane(index) else {
                throw MediaError(.decode, "libheif gave no picture")
            }
            let planeWidth = Int(heif.image_get_width(image, plane.channel)), planeHeight = Int(heif.image_get_height(image, plane.channel))
            let rowBytes = min(planeWidth * plane.bytesPerPixel, targetStride), count = plane.halfHeight ? (Int(height) + 1) / 2 : Int(height)
            for y in 0..<min(planeHeight, count) {
                (rows + y * targetStride).update(from: source + y * Int(stride), count: rowBytes)
            }
        }
        return frame
    }

    // MARK: - Helpers

    /// The embedded ICC profile (`heif_image_handle_get_raw_color_profile`); nil without one
    /// (an `nclx` box only describes the matrix, which libheif applies itself).
    private static func iccProfile(of handle: OpaquePointer, heif: story_heif_functions) -> ColourProfile? {
        let type = heif.image_handle_get_color_profile_type(handle)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return nil }
        let size = heif.image_handle_get_raw_color_profile_size(handle)
        guard size > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        guard heif.image_handle_get_raw_color_profile(handle, &bytes).code == heif_error_Ok else { return nil }
        return bytes.withUnsafeBytes { ColourProfile(icc: $0) }
    }

    /// libheif's message for a failed call.
    private static func text(_ error: heif_error) -> String {
        error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)"
    }
}
