#include "renderer/output/exr.h"

#include <OpenEXR/ImfChannelList.h>
#include <OpenEXR/ImfCheckFile.h>
#include <OpenEXR/ImfFloatAttribute.h>
#include <OpenEXR/ImfFrameBuffer.h>
#include <OpenEXR/ImfHeader.h>
#include <OpenEXR/ImfInputFile.h>
#include <OpenEXR/ImfIntAttribute.h>
#include <OpenEXR/ImfOutputFile.h>
#include <OpenEXR/ImfStdIO.h>
#include <OpenEXR/ImfStringAttribute.h>

#include <algorithm>
#include <exception>
#include <iterator>

#include "core/error.h"

namespace caustica {
namespace {

constexpr int kMaxSide = 16384;  // as the render options allow
constexpr const char* kChannels[3] = {"R", "G", "B"};
// The sample range's attributes (SampleRange).
constexpr const char* kFirst = "caustica.firstSample";
constexpr const char* kCount = "caustica.sampleCount";
constexpr const char* kTotal = "caustica.totalSamples";
constexpr const char* kScale = "caustica.scale";
constexpr const char* kToneMap = "caustica.toneMap";  // absent: none

// The slices of an image's R, G and B floats, for the pixel (0, 0) of 'window' at pixels[0].
Imf::FrameBuffer Slices(Image& image, const Imath::Box2i& window) {
    Imf::FrameBuffer slices;
    char* origin = reinterpret_cast<char*>(image.pixels.data()) -
                   (ptrdiff_t(window.min.x) + ptrdiff_t(window.min.y) * image.width) * ptrdiff_t(sizeof(Rgb));
    for (int c = 0; c < 3; ++c)
        slices.insert(kChannels[c], Imf::Slice(Imf::FLOAT, origin + c * sizeof(float), sizeof(Rgb),
                                               sizeof(Rgb) * size_t(image.width)));
    return slices;
}

template <class T>
std::optional<T> Find(const Imf::Header& header, const char* name) {
    const auto* attribute = header.findTypedAttribute<Imf::TypedAttribute<T>>(name);
    if (!attribute) return std::nullopt;
    return attribute->value();
}

}  // namespace

std::string EncodeExr(const Image& image, const std::optional<SampleRange>& range) {
    try {
        Imf::Header header(image.width, image.height);
        header.compression() = Imf::ZIP_COMPRESSION;
        for (const char* channel : kChannels) header.channels().insert(channel, Imf::Channel(Imf::FLOAT));
        if (range) {
            header.insert(kFirst, Imf::IntAttribute(int(range->first)));
            header.insert(kCount, Imf::IntAttribute(int(range->count)));
            header.insert(kTotal, Imf::IntAttribute(int(range->total)));
            header.insert(kScale, Imf::FloatAttribute(range->scale));
            if (range->tone_map != ToneMap::None)
                header.insert(kToneMap, Imf::StringAttribute(ToneMapName(range->tone_map)));
        }
        Imf::StdOSStream stream;
        {
            Imf::OutputFile file(stream, header);
            Image& pixels = const_cast<Image&>(image);  // OpenEXR's slices take a char*; it only reads them
            file.setFrameBuffer(Slices(pixels, header.dataWindow()));
            file.writePixels(image.height);
        }
        return stream.str();
    } catch (const std::exception& e) {
        throw RuntimeError(Concat("could not encode a ", image.width, "x", image.height, " EXR: ", e.what()));
    }
}

ExrImage DecodeExr(const std::string& bytes, const std::string& name) {
    const auto fail = [&](const std::string& what) -> ExrImage {
        throw InputError(Concat(name, ": error: ", what));
    };
    // OpenEXR's own check reads the whole file defensively first: a damaged file is reported, not
    // trusted (reduced memory and time: huge or slow files count as damaged).
    if (Imf::checkOpenEXRFile(bytes.data(), bytes.size(), true, true))
        return fail("not a readable OpenEXR file (damaged, or larger than this program reads)");
    try {
        Imf::StdISStream stream;
        stream.str(bytes);
        Imf::InputFile file(stream);
        const Imf::Header& header = file.header();
        const Imath::Box2i window = header.dataWindow();
        const long width = long(window.max.x) - window.min.x + 1, height = long(window.max.y) - window.min.y + 1;
        if (width < 1 || height < 1 || width > kMaxSide || height > kMaxSide)
            return fail(Concat("the image is ", width, "x", height, " pixels; at most ", kMaxSide, " a side are read"));
        for (const char* channel : kChannels)
            if (!header.channels().findChannel(channel))
                return fail(Concat("the file has no ", channel, " channel (expected R, G and B)"));
        ExrImage out;
        out.image = Image(int(width), int(height));
        file.setFrameBuffer(Slices(out.image, window));
        file.readPixels(window.min.y, window.max.y);
        const std::optional<int> first = Find<int>(header, kFirst), count = Find<int>(header, kCount),
                                 total = Find<int>(header, kTotal);
        const std::optional<float> scale = Find<float>(header, kScale);
        if (first || count || total || scale) {
            if (!first || !count || !total || !scale || *first < 0 || *count < 1 || *total < 1 ||
                int64_t(*first) + *count > *total)
                return fail(Concat("its sample range (", kFirst, ", ", kCount, ", ", kTotal, ", ", kScale,
                                   ") is incomplete or out of order"));
            for (const char* channel : kChannels)
                if (header.channels().findChannel(channel)->type != Imf::FLOAT)
                    return fail("a sample range's sum must be 32-bit float; this one was converted");
            out.range = SampleRange{uint32_t(*first), uint32_t(*count), uint32_t(*total), *scale};
            if (const std::optional<std::string> tone_map = Find<std::string>(header, kToneMap)) {
                const auto* name = std::find(std::begin(kToneMapNames), std::end(kToneMapNames), *tone_map);
                if (name == std::end(kToneMapNames))
                    return fail(Concat("its ", kToneMap, " is \"", *tone_map, "\" (expected none, filmic or agx)"));
                out.range->tone_map = ToneMap(name - std::begin(kToneMapNames));
            }
        }
        return out;
    } catch (const InputError&) {
        throw;
    } catch (const std::exception& e) {
        return fail(Concat("cannot read the OpenEXR file: ", e.what()));
    }
}

}  // namespace caustica
