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
};
