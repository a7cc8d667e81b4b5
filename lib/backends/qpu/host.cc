// SPDX-License-Identifier: GPL-3.0-or-later
/* gr-gpufft qpu backend: probing the board and opening the real devices. */
#include "host.h"
#include <gpufft/error.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <sstream>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace gpufft::qpu {

namespace {

class real_files final : public host_files
{
public:
    std::optional<std::string> read(const std::string& path) const override
    {
        std::ifstream f(path, std::ios::binary);
        if (!f)
            return std::nullopt;
        return std::string(std::istreambuf_iterator<char>(f), {});
    }

    std::vector<std::string> list(const std::string& dir) const override
    {
        std::vector<std::string> names;
        if (DIR* d = ::opendir(dir.c_str())) {
            while (const dirent* e = ::readdir(d))
                if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
                    names.push_back(e->d_name);
            ::closedir(d);
        }
        return names;
    }

    int open_error(const std::string& path) const override
    {
        const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
        if (fd < 0)
            return errno;
        ::close(fd);
        return 0;
    }
};

// Device-tree strings end in NUL; string lists are NUL separated.
std::vector<std::string> dt_strings(const std::optional<std::string>& raw)
{
    std::vector<std::string> out;
    if (!raw)
        return out;
    std::string item;
    std::istringstream s(*raw);
    while (std::getline(s, item, '\0'))
        if (!item.empty())
            out.push_back(item);
    return out;
}

std::string dt_string(const std::optional<std::string>& raw)
{
    const auto items = dt_strings(raw);
    return items.empty() ? std::string() : items.front();
}

bool has(const std::vector<std::string>& items, const std::string& what)
{
    for (const auto& i : items)
        if (i == what)
            return true;
    return false;
}

// Device-tree cells are big-endian 32-bit words.
std::optional<std::uint32_t> dt_cell(const std::optional<std::string>& raw, std::size_t byte)
{
    if (!raw || raw->size() < byte + 4)
        return std::nullopt;
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4; ++k)
        v = (v << 8) | std::uint8_t((*raw)[byte + k]);
    return v;
}

// The SoCs of the Pi family, by the names the device tree's compatible uses
// (upstream names, and the downstream ones older kernels used).
struct soc_entry {
    const char* compatible;
    const char* soc;
    bool videocore4;
    std::uint32_t default_peripheral_base;
    std::uint32_t default_sdram_bus;
};
const soc_entry socs[] = {
    { "brcm,bcm2835", "bcm2835", true, 0x20000000, 0x40000000 },
    { "brcm,bcm2708", "bcm2835", true, 0x20000000, 0x40000000 },
    { "brcm,bcm2836", "bcm2836", true, 0x3f000000, 0xc0000000 },
    { "brcm,bcm2709", "bcm2836", true, 0x3f000000, 0xc0000000 },
    { "brcm,bcm2837", "bcm2837", true, 0x3f000000, 0xc0000000 },
    { "brcm,bcm2710", "bcm2837", true, 0x3f000000, 0xc0000000 },
    { "brcm,bcm2711", "bcm2711", false, 0, 0 },
    { "brcm,bcm2838", "bcm2711", false, 0, 0 },
    { "brcm,bcm2712", "bcm2712", false, 0, 0 },
};

probe_result refuse(const std::string& reason) { return { std::nullopt, reason }; }

// The KMS driver's device-tree nodes under /soc: the V3D block and the vc4
// display pipeline. Enabled (status "okay", or no status) means the kernel
// driver owns the V3D and the firmware will not run QPU jobs.
std::string kms_node(const host_files& files)
{
    const std::string soc = "/proc/device-tree/soc/";
    for (const std::string& node : files.list(soc)) {
        const auto compatible = dt_strings(files.read(soc + node + "/compatible"));
        if (!has(compatible, "brcm,bcm2835-v3d") && !has(compatible, "brcm,bcm2835-vc4"))
            continue;
        const auto status = files.read(soc + node + "/status");
        const std::string s = dt_string(status);
        if (!status || s == "okay" || s == "ok")
            return "soc/" + node;
    }
    return {};
}

bool vc4_module_loaded(const host_files& files)
{
    std::istringstream modules(files.read("/proc/modules").value_or(""));
    std::string line;
    while (std::getline(modules, line))
        if (line.compare(0, 4, "vc4 ") == 0)
            return true;
    return false;
}

std::string permission_problem(const host_files& files)
{
    const int vcio = files.open_error("/dev/vcio");
    if (vcio == ENOENT)
        return "no /dev/vcio (the firmware mailbox device of the Raspberry Pi kernel)";
    if (vcio == EACCES || vcio == EPERM)
        return "no permission to open /dev/vcio: run as root, or add the user to the video "
               "group (sudo usermod -aG video $USER, then log in again)";
    if (vcio != 0)
        return "cannot open /dev/vcio: " + std::string(std::strerror(vcio));
    const int mem = files.open_error("/dev/mem");
    if (mem == EACCES || mem == EPERM)
        return "no permission to open /dev/mem, through which the V3D registers and GPU memory "
               "are mapped: run as root";
    if (mem != 0)
        return "cannot open /dev/mem: " + std::string(std::strerror(mem));
    return {};
}

} // namespace

std::unique_ptr<host_files> system_files() { return std::make_unique<real_files>(); }

probe_result probe_board(const host_files& files)
{
    const std::string model = dt_string(files.read("/proc/device-tree/model"));
    const auto compatible = dt_strings(files.read("/proc/device-tree/compatible"));
    const soc_entry* soc = nullptr;
    for (const soc_entry& e : socs)
        if (!soc && has(compatible, e.compatible))
            soc = &e;
    if (model.compare(0, 12, "Raspberry Pi") != 0 && !soc)
        return refuse(model.empty() ? "not a Raspberry Pi (no device-tree model)"
                                    : "not a Raspberry Pi (" + model + ")");
    if (!soc)
        return refuse(model + ": unknown SoC, not a VideoCore IV");
    if (!soc->videocore4)
        return refuse(model + " (" + soc->soc +
                      ") is not a VideoCore IV: the Pi 4 and 5 have V3D 4.x and 7.x, the qpu "
                      "backend needs the VideoCore IV of the Pi 0 to 3");

    const std::string kms = kms_node(files);
    if (!kms.empty() || vc4_module_loaded(files))
        return refuse("the vc4-kms-v3d driver owns the GPU (" +
                      (kms.empty() ? std::string("the vc4 module is loaded")
                                   : "device-tree node " + kms + " is enabled") +
                      "); to use the legacy firmware driver, remove dtoverlay=vc4-kms-v3d (or "
                      "vc4-fkms-v3d) from config.txt and reboot");

    const std::string denied = permission_problem(files);
    if (!denied.empty())
        return refuse(denied);

    // As bcm_host does: soc/ranges is <bus base, ARM base, size>; with two
    // address cells for the ARM side (64-bit kernels) the base moves one cell on.
    board b{ model, soc->soc, soc->default_peripheral_base, 0x01000000, soc->default_sdram_bus, 0 };
    const auto ranges = files.read("/proc/device-tree/soc/ranges");
    if (const auto base = dt_cell(ranges, 4)) {
        const bool wide = *base == 0;
        if (const auto b2 = dt_cell(ranges, wide ? 8 : 4))
            b.peripheral_base = *b2;
        if (const auto size = dt_cell(ranges, wide ? 12 : 8))
            b.peripheral_size = *size;
    }
    if (const auto sdram = dt_cell(files.read("/proc/device-tree/axi/vc_mem/reg"), 8))
        b.sdram_bus_base = *sdram;
    // Pi 0/1 see SDRAM through the L2-cached alias and the ARM shares that
    // L2; on the Pi 2/3 the ARM cannot see it, so GPU memory must bypass it.
    b.mem_flags = b.sdram_bus_base == 0x40000000 ? mem_flag::l1_nonallocating : mem_flag::direct;
    return { b, {} };
}

namespace {

class vcio_mailbox final : public mailbox
{
public:
    vcio_mailbox() : d_fd(::open("/dev/vcio", O_RDWR | O_CLOEXEC))
    {
        if (d_fd < 0)
            throw error("gpufft: qpu: cannot open /dev/vcio: " + std::string(std::strerror(errno)));
    }
    ~vcio_mailbox() override { ::close(d_fd); }

    int transfer(std::uint32_t* buffer) noexcept override
    {
        // The Pi kernel's vcio ioctl: _IOWR(100, 0, char *).
        return ::ioctl(d_fd, _IOWR(100, 0, char*), buffer) < 0 ? errno : 0;
    }

private:
    int d_fd;
};

// GPU memory and peripherals mapped through /dev/mem by ARM physical address.
class dev_mem
{
public:
    dev_mem() : d_fd(::open("/dev/mem", O_RDWR | O_SYNC | O_CLOEXEC))
    {
        if (d_fd < 0)
            throw error("gpufft: qpu: cannot open /dev/mem: " + std::string(std::strerror(errno)));
    }
    ~dev_mem() { ::close(d_fd); }
    dev_mem(const dev_mem&) = delete;
    dev_mem& operator=(const dev_mem&) = delete;

    void* map(std::uint32_t physical, std::size_t bytes) const
    {
        void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, d_fd, off_t(physical));
        if (p == MAP_FAILED) {
            char addr[16];
            std::snprintf(addr, sizeof addr, "0x%08x", physical);
            throw error("gpufft: qpu: mapping " + std::to_string(bytes) + " bytes of /dev/mem at " +
                        addr + " failed: " + std::strerror(errno));
        }
        return p;
    }

private:
    int d_fd;
};

class mapped_registers final : public register_window
{
public:
    mapped_registers(std::shared_ptr<dev_mem> mem, std::uint32_t physical)
        : d_mem(std::move(mem)),
          d_regs(static_cast<volatile std::uint32_t*>(d_mem->map(physical, page)))
    {
    }
    ~mapped_registers() override { ::munmap(const_cast<std::uint32_t*>(d_regs), page); }

    std::uint32_t read(std::uint32_t offset) override { return d_regs[offset / 4]; }
    void write(std::uint32_t offset, std::uint32_t value) override { d_regs[offset / 4] = value; }

private:
    static constexpr std::size_t page = 4096;
    std::shared_ptr<dev_mem> d_mem;
    volatile std::uint32_t* d_regs;
};

class dev_mem_mapper final : public memory_mapper
{
public:
    explicit dev_mem_mapper(std::shared_ptr<dev_mem> mem) : d_mem(std::move(mem)) {}

    // The bus alias is in the top two address bits; the ARM sees SDRAM at 0.
    void* map(std::uint32_t bus, std::size_t bytes) override
    {
        return d_mem->map(bus & ~0xc0000000u, bytes);
    }
    void unmap(void* host, std::size_t bytes) noexcept override { ::munmap(host, bytes); }

private:
    std::shared_ptr<dev_mem> d_mem;
};

} // namespace

host::host(board info_,
           std::shared_ptr<mailbox> mb_,
           std::unique_ptr<register_window> v3d_,
           std::unique_ptr<memory_mapper> memory_)
    : info(std::move(info_)), mb(std::move(mb_)), v3d(std::move(v3d_)), memory(std::move(memory_))
{
    // The firmware's own word on the board, beside the device tree's: new-style
    // revision codes (bit 23) carry the SoC in bits 15:12, 0-2 being the
    // BCM2835-7 of the Pi 0 to 3.
    firmware_revision = qpu::firmware_revision(*mb);
    board_revision = qpu::board_revision(*mb);
    if ((board_revision & (1u << 23)) && ((board_revision >> 12) & 0xf) > 2) {
        char s[96];
        std::snprintf(s, sizeof s, "board revision 0x%x has a BCM27%s", board_revision,
                      ((board_revision >> 12) & 0xf) == 3 ? "11" : "12 or later");
        throw error("gpufft: qpu: " + std::string(s) + ", not a VideoCore IV");
    }
    qpu_enable(*mb, true);
    // Read after enabling: the V3D block is powered down before.
    const std::uint32_t ident = v3d->read(v3d::IDENT0);
    if (ident != v3d::IDENT0_VC4) {
        std::uint32_t status;
        property_call(*mb, tag::qpu_enable, { 0 }, &status, 1);
        char s[80];
        std::snprintf(s, sizeof s, "V3D IDENT0 reads 0x%08x, not 0x%08x", ident, v3d::IDENT0_VC4);
        throw error("gpufft: qpu: " + std::string(s) + ": not a VideoCore IV V3D");
    }
}

host::~host()
{
    std::uint32_t status;
    property_call(*mb, tag::qpu_enable, { 0 }, &status, 1);
}

std::shared_ptr<host> open_system_host(const board& b)
{
    auto mem = std::make_shared<dev_mem>();
    return std::make_shared<host>(b,
                                  std::make_shared<vcio_mailbox>(),
                                  std::make_unique<mapped_registers>(mem, b.peripheral_base + v3d::BLOCK_OFFSET),
                                  std::make_unique<dev_mem_mapper>(mem));
}

} // namespace gpufft::qpu
