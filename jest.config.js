/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: {
    "^.+\\.ts$": ["@swc/jest", {
      jsc: {
        parser: { syntax: "typescript", decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: "es2022",
      },
      module: { type: "commonjs" },
      sourceMaps: "inline",
    }],
  },
  globalSetup: "<rootDir>/test/support/redis.global-setup.ts",
  globalTeardown: "<rootDir>/test/support/redis.global-teardown.ts",
  moduleFileExtensions: ["ts", "js", "json"],
  testTimeout: 30000,
  // Test files run in a worker that is replaced once it holds more than this after a file. Without it, jest
  // runs every file in its own process on a 2-core machine (one worker or less: in band), where what the files
  // leave on the heap adds up: 4 GB, and the run died out of memory, 160 files in (session 10).
  workerIdleMemoryLimit: "1GB",
};
