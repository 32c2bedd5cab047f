// The tests set every option they depend on; CARRIER_* variables of the developer's shell
// (a real base URL, a real secret) must not leak into them.
for (const name of Object.keys(process.env)) if (name.startsWith('CARRIER_')) delete process.env[name];
