import { Field, InputType, ObjectType } from '@nestjs/graphql';
import { IsString, Length } from 'class-validator';
import { PASSWORD_MAX_LENGTH } from '@lunanexa/contracts';
import { Operator } from './operator.types';

@InputType({ description: 'Username and password of an enabled operator.' })
export class LoginInput {
  @Field()
  @IsString()
  @Length(1, 64)
  username!: string;

  @Field()
  @IsString()
  @Length(1, PASSWORD_MAX_LENGTH)
  password!: string;
}

@ObjectType({ description: 'A session: send `Authorization: Bearer <accessToken>` until it expires.' })
export class LoginResult {
  @Field({ description: 'Session token (JWT, EdDSA); valid for 15 minutes.' })
  accessToken!: string;

  @Field()
  expiresAt!: Date;

  @Field(() => Operator)
  operator!: Operator;
}
