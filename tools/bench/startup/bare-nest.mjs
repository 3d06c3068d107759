// The floor for `caravel start`: a NestJS HTTP app with one route and nothing else, listening on
// the port given, printing `listening` once it does. Plain JavaScript (no decorators): the
// module and controller are declared with the decorator functions called by hand.
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

class HealthController {
  ready() {
    return { status: 'ok' };
  }
}
Get('health/ready')(
  HealthController.prototype,
  'ready',
  Object.getOwnPropertyDescriptor(HealthController.prototype, 'ready'),
);
Controller()(HealthController);

class AppModule {}
Module({ controllers: [HealthController] })(AppModule);

const app = await NestFactory.create(AppModule, { logger: false });
await app.listen(Number(process.argv[2]), '127.0.0.1');
// As `caravel start` does on Ctrl-C: close the app, then exit 0.
process.once('SIGINT', () => void app.close().then(() => process.exit(0)));
process.stdout.write('listening\n');
